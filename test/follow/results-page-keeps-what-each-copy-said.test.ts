// Decision 0054: every attempt keeps what it sent to its target (the text, the photo with its alt
// text, where the link went), the edit's text too, and the results page shows it (HTML in en, de
// and fr, and JSON) after the post was edited and even after it was deleted, when the post itself
// says something else or nothing at all. Against the Mastodon sandbox, nobody clicking.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { type FollowWorld, startFollowWorld } from "./follow-world.ts";

const PUT = /^\/api\/v1\/statuses\/\d+$/;
const DELETE = /^\/api\/v1\/statuses\/\d+$/;

interface SentJson {
  text: string | null;
  photos: { url: string; alt: string | null }[];
  permalink: string;
}
interface ResultsJson {
  url: string;
  deleted: boolean;
  attempts: { target: string; operation: string; outcome: string; sent: SentJson | null }[];
}

const SENT_LABEL = { en: "What was sent", de: "Was gesendet wurde", fr: "Ce qui a été envoyé" } as const;

for (const engine of engines) {
  describe(`the results page keeps what each copy said (${engine.name})`, () => {
    let world: FollowWorld | undefined;
    let session: { cookie: string; csrf: string };
    before(async () => {
      world = await startFollowWorld(engine);
      session = await world.app.server.signIn();
    });
    after(async () => {
      await world?.close();
    });

    const results = async (postId: string, accept: string, language = "en") => {
      const response = await fetch(`${world?.app.endpoint}/posts/${postId}`, {
        headers: { cookie: session.cookie, accept, "accept-language": language },
      });
      assert.equal(response.status, 200);
      return response;
    };

    it("records the sent text, photo and alt, then the edit's text, kept after the delete", async () => {
      assert.ok(world);
      const { target } = world;
      const url = await world.publishAndWait("First words as sent");
      const status = target.sandbox.statuses[0];
      assert.ok(status);
      // What the copy said when it was made, as the sandbox received it.
      const firstText = status.text;
      const photo = `${world.photos.url}/dog.jpg`;
      assert.equal(
        await world.micropub({
          action: "update",
          url,
          replace: {
            content: ["Second words after the edit"],
            photo: [{ value: photo, alt: "A dog running" }],
          },
        }),
        204,
      );
      await until("the copy is edited", async () => world?.requests("PUT", PUT).length === 1);
      // What the copy said, as the sandbox holds it: the history must say the same.
      const editedText = status.text;
      assert.match(editedText, /^Second words after the edit/);

      const post = await world.app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      let body = (await (await results(post.id, "application/json")).json()) as ResultsJson;
      const create = body.attempts.find((a) => a.operation === "create");
      const update = body.attempts.find((a) => a.operation === "update");
      assert.ok(create?.sent && update?.sent, JSON.stringify(body.attempts));
      assert.match(create.sent.text ?? "", /^First words as sent/);
      assert.equal(create.sent.text, firstText, "exactly the text the copy was made with");
      assert.deepEqual(create.sent.photos, [{ url: `${world.photos.url}/cat.jpg`, alt: null }]);
      assert.equal(update.sent.text, editedText, "the edit's text exactly as the copy now says it");
      assert.deepEqual(update.sent.photos, [{ url: photo, alt: "A dog running" }]);
      assert.equal(create.sent.permalink, firstText.includes(url) ? "text" : "none");

      // The page says it in each language, the first text still there after the post changed.
      for (const language of ["en", "de", "fr"] as const) {
        const html = await (await results(post.id, "text/html", language)).text();
        assert.ok(html.includes(SENT_LABEL[language]), `${language}: the sent copy is labelled`);
        assert.ok(html.includes("First words as sent"), `${language}: the first text is shown`);
        assert.ok(html.includes("A dog running"), `${language}: the alt text is shown`);
      }

      // Deleted: the post says nothing any more, the history still says what each copy said.
      assert.equal(await world.micropub({ action: "delete", url }), 204);
      await until("the copy is deleted", async () => world?.requests("DELETE", DELETE).length === 1);
      body = (await (await results(post.id, "application/json")).json()) as ResultsJson;
      assert.equal(body.deleted, true);
      const deletion = body.attempts.find((a) => a.operation === "delete");
      assert.equal(deletion?.outcome, "syndicated");
      assert.equal(deletion?.sent, null, "a deletion sends no text");
      assert.match(
        body.attempts.find((a) => a.operation === "create")?.sent?.text ?? "",
        /^First words as sent/,
      );
      assert.equal(body.attempts.find((a) => a.operation === "update")?.sent?.text, editedText);
    });
  });
}
