// Decision 0060: GoToSocial's, Akkoma's and Pleroma's edits change a status's media, so a copy there
// follows a Micropub edit of the post's photos as a Mastodon copy does: the dropped photo's media is
// detached, the new photo is uploaded and attached with its alt text, the attempt records the new
// photos as sent, and the post's results page says nothing about photos kept. Nobody clicks: the
// scheduler edits the copy.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { type FollowWorld, startFollowWorld } from "./follow-world.ts";

const PUT = /^\/api\/v1\/statuses\/\d+$/;

for (const engine of engines) {
  for (const software of ["gotosocial", "akkoma", "pleroma"] as const) {
    describe(`an edit of the photos reaches a ${software} copy (${engine.name})`, () => {
      let world: FollowWorld | undefined;
      let session: { cookie: string; csrf: string };
      before(async () => {
        world = await startFollowWorld(engine, undefined, {}, software);
        session = await world.app.server.signIn();
      });
      after(async () => {
        await world?.close();
      });

      it("replaces the copy's photo, records it as sent, and shows no photos-kept notice", async () => {
        assert.ok(world);
        const url = await world.publishAndWait("A heron by the pond");
        const status = world.target.sandbox.statuses[0];
        assert.ok(status);
        const [oldMedia] = status.media.map((item) => item.id);
        assert.ok(oldMedia);
        const newPhoto = `${world.photos.url}/dog.jpg`;

        const update = {
          action: "update",
          url,
          replace: {
            content: ["Two herons by the pond"],
            photo: [{ value: newPhoto, alt: "Two herons" }],
          },
        };
        assert.equal(await world.micropub(update), 204);
        await until("the copy is edited", async () => world?.requests("PUT", PUT).length === 1);
        const post = await world.app.server.host.posts?.findByUrl(url);
        assert.ok(post);
        await until("the edit is recorded", async () => {
          const attempts = (await world?.app.syndication().reads.attemptsForPost(post.id)) ?? [];
          return attempts.some(
            (attempt) => attempt.operation === "update" && attempt.outcome === "syndicated",
          );
        });
        assert.match(status.text, /Two herons by the pond/);
        assert.equal(status.media.length, 1);
        assert.notEqual(status.media[0]?.id, oldMedia, "a new media");
        assert.equal(status.media[0]?.description, "Two herons");
        assert.equal(
          world.target.sandbox.media.find((item) => item.id === oldMedia)?.statusId,
          null,
          "the old photo's media is detached",
        );
        const attempts = await world.app.syndication().reads.attemptsForPost(post.id);
        const edit = attempts.find((attempt) => attempt.operation === "update");
        assert.deepEqual(
          edit?.sent?.photos,
          [{ url: newPhoto, alt: "Two herons" }],
          "recorded: the new photo",
        );

        const response = await fetch(`${world.app.endpoint}/posts/${post.id}`, {
          headers: { cookie: session.cookie, accept: "text/html", "accept-language": "en" },
        });
        assert.equal(response.status, 200);
        assert.doesNotMatch(await response.text(), /cannot change a copy’s photos/);
      });
    });
  }
}
