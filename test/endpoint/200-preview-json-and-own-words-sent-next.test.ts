// Decision 0025: GET {mountPath}/preview?url= answers, as JSON, what each target would receive; the user's
// own words for one target (saved from the page's form, or given by Micropub in mp-syndicate-text)
// are what the next send carries, noted in the history; over the limit they are refused; reset
// brings the template's text back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  texts,
} from "./endpoint-server.ts";

interface PreviewBody {
  url: string;
  targets: {
    uid: string;
    name: string;
    own_text: { text: string; source: string } | null;
    preview: {
      text: string;
      length: { count: number; limit: number; assumed: boolean };
      over: boolean;
    } | null;
  }[];
}

for (const engine of engines) {
  describe(`Preview as JSON and the user's own words (${engine.name})`, () => {
    let target: Target;
    let app: EndpointServer;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
    });
    after(() => closeServerThenTargets(app, target));

    const preview = async (url: string): Promise<PreviewBody> => {
      const response = await fetch(`${app.endpoint}/preview?url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
      });
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as PreviewBody;
    };
    const postId = async (url: string) => (await app.server.host.posts?.findByUrl(url))?.id ?? "";
    const form = (path: string, fields: Record<string, string>) =>
      fetch(`${app.endpoint}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          authorization: `Bearer ${app.token}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "text/html",
        },
        body: new URLSearchParams(fields),
      });

    it("200: the text, its count against the limit (assumed before the instance was read)", async () => {
      const url = await app.createPost({ content: "Hello herons", targets: [target.uid] });
      const body = await preview(url);
      assert.equal(body.url, url);
      assert.equal(body.targets.length, 1);
      const [only] = body.targets;
      assert.equal(only?.uid, target.uid);
      assert.equal(only?.preview?.text, "Hello herons");
      assert.deepEqual(only?.preview?.length, { count: 12, limit: 500, unit: "characters", assumed: true });
      assert.equal(only?.own_text, null);
      assert.equal(target.sandbox.requests.length, 0, "a preview makes no network call");
    });

    it("404 JSON for an unknown post, 400 without url, 401 without credentials", async () => {
      const missing = await fetch(
        `${app.endpoint}/preview?url=${encodeURIComponent(`${app.url}/notes/none/`)}`,
        {
          headers: { authorization: `Bearer ${app.token}`, accept: "text/html" },
        },
      );
      await assertError(missing, 404, "not_found");
      const noUrl = await fetch(`${app.endpoint}/preview`, {
        headers: { authorization: `Bearer ${app.token}` },
      });
      await assertError(noUrl, 400, "invalid_request");
      const stranger = await fetch(`${app.endpoint}/preview?url=x`, {
        headers: { accept: "application/json" },
      });
      assert.equal(stranger.status, 401);
    });

    it("the saved text is sent, noted in the history, and reset brings the template back", async () => {
      const url = await app.createPost({ content: "The template's text", targets: [target.uid] });
      const id = await postId(url);
      const over = await form(`/posts/${id}/text`, { target_uid: target.uid, text: "x".repeat(501) });
      assert.equal(over.status, 422, "over the limit: refused");
      assert.match(await over.text(), /501/);
      assert.equal((await preview(url)).targets[0]?.own_text, null, "nothing was saved");

      const saved = await form(`/posts/${id}/text`, { target_uid: target.uid, text: "My own\r\nwords" });
      assert.equal(saved.status, 303);
      const withText = (await preview(url)).targets[0];
      assert.deepEqual(withText?.own_text, { text: "My own\nwords", source: "page" });
      assert.equal(withText?.preview?.text, "My own\nwords");

      const reset = await form(`/posts/${id}/text/reset`, { target_uid: target.uid });
      assert.equal(reset.status, 303);
      assert.equal((await preview(url)).targets[0]?.preview?.text, "The template's text");

      await form(`/posts/${id}/text`, { target_uid: target.uid, text: "Sent in my words" });
      const response = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(texts(target).at(-1), "Sent in my words");
      const attempts = await app.syndication().reads.attemptsForPost(id);
      assert.equal(attempts[0]?.ownText, "Sent in my words");
    });

    it("mp-syndicate-text from a Micropub client is sent, and reset removes it", async () => {
      const response = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          type: ["h-entry"],
          properties: {
            content: ["Long text from the client"],
            "mp-syndicate-to": [target.uid],
            "mp-syndicate-text": [{ [target.uid]: "Short, from Micropub" }],
          },
        }),
      });
      assert.equal(response.status, 201, await response.clone().text());
      const url = response.headers.get("location") ?? "";
      const shown = (await preview(url)).targets[0];
      assert.deepEqual(shown?.own_text, { text: "Short, from Micropub", source: "micropub" });
      await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(texts(target).at(-1), "Short, from Micropub");
      const id = await postId(url);
      await form(`/posts/${id}/text/reset`, { target_uid: target.uid });
      assert.equal((await preview(url)).targets[0]?.own_text, null);
      assert.equal((await app.server.host.posts?.findByUrl(url))?.properties["mp-syndicate-text"], undefined);
    });
  });
}
