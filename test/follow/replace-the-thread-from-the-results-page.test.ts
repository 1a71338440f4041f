// Decision 0062: a post sent to Bluesky (the PDS fake) as a thread and then edited is kept as sent; the
// post's results page offers "Replace the thread" beside that edit, with the warning that replies are
// lost, in English, German and French; the form, sent without JavaScript, replaces the thread's
// records by the edited ones and the post links to the new thread.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import type { FakePds } from "../fakes/bluesky-pds.ts";
import { startThreadingBluesky, threadParagraph } from "../fakes/threading-bluesky.ts";
import { engines } from "../helpers/databases.ts";

const paragraph = threadParagraph;

const WARNINGS = {
  en: "Replies, likes and reposts of the old posts are lost",
  de: "Antworten, Likes und Reposts der alten Beiträge gehen verloren",
  fr: "Les réponses, mentions «\u202fj’aime\u202f» et partages des anciens messages sont perdus",
} as const;

for (const engine of engines) {
  describe(`"Replace the thread" on the results page (${engine.name})`, () => {
    let pds: FakePds | undefined;
    let app: EndpointServer | undefined;
    let bluesky: BlueskySyndicator;
    let session: { cookie: string; csrf: string };
    let token: string;
    before(async () => {
      ({ pds, bluesky: bluesky } = await startThreadingBluesky());
      app = await startEndpointServer({ engine, targets: [], syndicators: [bluesky] });
      session = await app.server.signIn();
      token = await app.server.token("create update delete");
    });
    after(async () => {
      await app?.close();
      await pds?.close();
    });

    const page = async (path: string, language: string) =>
      (
        await fetch(`${app?.endpoint}${path}`, {
          headers: { cookie: session.cookie, accept: "text/html", "accept-language": language },
        })
      ).text();

    it("offers it with its warning beside the kept edit, and replaces the thread when asked", async () => {
      assert.ok(app && pds);
      const url = await app.createPost({
        content: [1, 2, 3].map(paragraph).join("\n\n"),
        targets: [bluesky.info.uid],
      });
      assert.equal((await app.syndicate()).status, 200);
      assert.equal(pds.records.length, 3);
      const old = pds.records.map((record) => record.uri);
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);

      const edited = [1, 2, 4].map(paragraph);
      const updated = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ action: "update", url, replace: { content: [edited.join("\n\n")] } }),
      });
      assert.equal(updated.status, 204);
      assert.equal((await app.syndicate()).status, 200);
      assert.deepEqual(
        pds.records.map((record) => record.uri),
        old,
        "kept as sent",
      );
      for (const [language, warning] of Object.entries(WARNINGS)) {
        const html = await page(`/posts/${post.id}`, language);
        assert.match(html, /class="follow-up-replace-form"/, language);
        assert.ok(html.includes(warning), `${language}: the warning`);
      }

      const replaced = await fetch(`${app.endpoint}/posts/${post.id}/follow-ups/replace`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: session.cookie,
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, target_uid: bluesky.info.uid }),
      });
      assert.equal(replaced.status, 303);
      assert.deepEqual(
        pds.records.map((record) => record.value.text),
        edited,
      );
      assert.ok(pds.records.every((record) => !old.includes(record.uri)));
      const first = pds.records[0]?.rkey;
      const stored = await app.server.host.posts?.findByUrl(url);
      assert.deepEqual(stored?.properties.syndication, [`https://bsky.app/profile/${pds.did}/post/${first}`]);
      const html = await page(`/posts/${post.id}`, "en");
      assert.doesNotMatch(html, /class="follow-up-replace-form"/, "nothing left to replace");

      // Asked again with nothing to replace: refused, and nothing is sent.
      const again = await fetch(`${app.endpoint}/posts/${post.id}/follow-ups/replace`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: session.cookie,
          "hx-request": "true",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, target_uid: bluesky.info.uid }),
      });
      assert.equal(again.status, 409);
    });
  });
}
