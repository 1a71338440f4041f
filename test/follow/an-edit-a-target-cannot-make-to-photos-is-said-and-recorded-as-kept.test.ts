// Decision 0060: a target whose edits cannot change a copy's photos (here Pixelfed's, through the
// Mastodon syndicator: its edit never attaches a new photo) keeps the photos it was sent
// when the post's photos change: its edit sends the text and leaves the media as they are, the
// attempt records the photos the copy keeps (not the post's new ones), and the post's results page
// says so plainly in the reader's language. Nobody clicks: the scheduler edits the copy.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { type FollowWorld, startFollowWorld } from "./follow-world.ts";

const PUT = /^\/api\/v1\/statuses\/\d+$/;

for (const engine of engines) {
  describe(`an edit a target cannot make to photos is said and recorded as kept (${engine.name})`, () => {
    let world: FollowWorld | undefined;
    let session: { cookie: string; csrf: string };
    before(async () => {
      world = await startFollowWorld(engine, undefined, {}, "pixelfed");
      session = await world.app.server.signIn();
    });
    after(async () => {
      await world?.close();
    });

    it("keeps the copy's media, records them as sent, and says so on the results page", async () => {
      assert.ok(world);
      const url = await world.publishAndWait("A heron by the pond");
      const status = world.target.sandbox.statuses[0];
      assert.ok(status);
      const media = status.media.map((item) => item.id);
      assert.equal(media.length, 1);
      const oldPhoto = `${world.photos.url}/cat.jpg`;

      const update = {
        action: "update",
        url,
        replace: {
          content: ["Two herons by the pond"],
          photo: [{ value: `${world.photos.url}/dog.jpg`, alt: "Two herons" }],
        },
      };
      assert.equal(await world.micropub(update), 204);
      await until("the copy is edited", async () => world?.requests("PUT", PUT).length === 1);
      const post = await world.app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      await until("the edit is recorded", async () => {
        const attempts = (await world?.app.syndication().reads.attemptsForPost(post.id)) ?? [];
        return attempts.some((attempt) => attempt.operation === "update" && attempt.outcome === "syndicated");
      });
      assert.match(status.text, /Two herons by the pond/, "the text follows");
      assert.deepEqual(
        status.media.map((item) => item.id),
        media,
        "the media stay",
      );
      const attempts = await world.app.syndication().reads.attemptsForPost(post.id);
      const edit = attempts.find((attempt) => attempt.operation === "update");
      assert.deepEqual(edit?.sent?.photos, [{ url: oldPhoto, alt: null }], "recorded: the photos kept");
      assert.match(edit?.sent?.text ?? "", /Two herons by the pond/);

      const resultsPage = `${world.app.endpoint}/posts/${post.id}`;
      for (const [language, said] of [
        ["en", /cannot change a copy’s photos: its copy keeps the photos it was sent/],
        ["de", /kann die Fotos einer Kopie nicht ändern/],
        ["fr", /ne peut pas changer les photos d’une copie/],
      ] as const) {
        const response: Response = await fetch(resultsPage, {
          headers: { cookie: session.cookie, accept: "text/html", "accept-language": language },
        });
        assert.equal(response.status, 200);
        assert.match(await response.text(), said);
      }
    });
  });
}
