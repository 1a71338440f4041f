// Decision 0060: the edit form adds several photos in one save, each with its own alt text, through
// the host's Micropub code (one multipart update): the post has them in the form's order, the
// Mastodon sandbox copy gets each as new media with its description. The page shows rows for new
// photos up to the room the post has left (MAX_PHOTOS in all: each row's file input is a file part).
// Over the limits (more photos than a post may have; more files than a request may bring) the save
// is refused in the reader's language and nothing is half-saved: no photo, no file left in the media
// store, no edit of the copy.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MULTIPART_MAX_FILES } from "../../src/contract/micropub.ts";
import { MAX_PHOTOS, NEW_PHOTO_ROWS } from "../../src/plugin/page/compose-form.ts";
import { jpegBytes } from "../fakes/photo-server.ts";
import { pngBytes } from "../fakes/png.ts";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { composeAsOwner, type Field, multipart } from "./compose-as-owner.ts";

const STATUS = /^\/api\/v1\/statuses\/\d+$/;

const jpeg = { bytes: new Uint8Array(jpegBytes), type: "image/jpeg" };
const png = (side: number) => ({ bytes: new Uint8Array(pngBytes(side, side)), type: "image/png" });

for (const engine of engines) {
  describe(`the edit form adds several photos in one save (${engine.name})`, () => {
    const owner = composeAsOwner(engine);
    const { page } = owner;
    const edit = (postId: string, fields: Field[], language = "en") =>
      page(
        `/posts/${postId}/edit?_csrf=${encodeURIComponent(owner.session.csrf)}`,
        { method: "POST", body: multipart(fields) },
        language,
      );
    const { storedPhotos } = owner;
    const files = owner.mediaFiles;
    const puts = () => owner.world.requests("PUT", STATUS).length;
    const newRows = (html: string) => [...html.matchAll(/<fieldset class="edit-photo new-photo">/g)].length;

    it("adds three photos, each with its alt text, and the copy gets each as new media", async () => {
      const published = await page(`/compose?_csrf=${encodeURIComponent(owner.session.csrf)}`, {
        method: "POST",
        body: multipart([
          ["kind", "note"],
          ["content", "Birds on the lake"],
          ["photo", jpeg],
          ["mp-photo-alt", "A heron"],
          ["mp-syndicate-to[]", owner.world.target.uid],
        ]),
      });
      assert.equal(published.status, 303, published.html);
      const postId = /\/posts\/(\d+)$/.exec(published.location ?? "")?.[1] ?? "";
      const post = await owner.world.app.server.host.posts?.findById(postId);
      assert.ok(post);
      await until("the copy is out", async () =>
        Array.isArray((await owner.world.properties(post.url))?.syndication),
      );
      const copy = owner.world.target.sandbox.statuses.find((status) =>
        status.text.includes("Birds on the lake"),
      );
      assert.ok(copy);
      const [heronMedia] = copy.media.map((item) => item.id);

      const form = await page(`/posts/${postId}/edit`);
      assert.equal(newRows(form.html), NEW_PHOTO_ROWS, "rows for new photos without JavaScript");
      assert.match(form.html, /id="add-photo-row" hidden/, "the button for more rows, for compose.js");
      assert.match(form.html, new RegExp(`data-room="${MAX_PHOTOS - 1}"`));

      const [heron] = await storedPhotos(post.url);
      assert.ok(heron);
      const before = puts();
      const filesBefore = await files();
      const saved = await edit(postId, [
        ["kind", "note"],
        ["content", "Birds on the lake"],
        ["photo-slot", heron.url],
        ["photo-alt", "A heron"],
        ["photo-slot", "new"],
        ["photo", png(2)],
        ["photo-alt", "A swan"],
        ["photo-slot", "new"],
        ["photo", png(3)],
        ["photo-alt", "A coot"],
        // A row left empty, as a browser sends it: no file, no alt text.
        ["photo-slot", "new"],
        ["photo-alt", ""],
        ["photo-slot", "new"],
        ["photo", png(4)],
        ["photo-alt", "A grebe"],
      ]);
      assert.equal(saved.status, 303, saved.html);
      const photos = await storedPhotos(post.url);
      assert.deepEqual(
        photos.map((photo) => photo.alt),
        ["A heron", "A swan", "A coot", "A grebe"],
      );
      assert.equal(new Set(photos.map((photo) => photo.url)).size, 4, "each a file of its own");
      assert.equal((await files()).length, filesBefore.length + 3, "the three files kept, no more");
      await until("the copy is edited", async () => puts() === before + 1);
      assert.deepEqual(
        copy.media.map((item) => item.description),
        ["A heron", "A swan", "A coot", "A grebe"],
      );
      assert.equal(copy.media[0]?.id, heronMedia, "the heron keeps its media");
    });

    it("refuses more photos than a post may have, and more files than a request may bring, keeping nothing", async () => {
      // A post that already has MAX_PHOTOS - 1 photos (a Micropub client may send that many).
      const many = Array.from(
        { length: MAX_PHOTOS - 1 },
        (_, index) => `${owner.world.photos.url}/p${index}.jpg`,
      );
      const full = await owner.world.app.server.host.posts?.create({
        properties: { content: "A full album", photo: many },
      });
      assert.ok(full);
      const form = await page(`/posts/${full.id}/edit`);
      assert.equal(newRows(form.html), 1, "room for one more photo: one row");
      assert.doesNotMatch(form.html, /id="add-photo-row"/, "no button when one row fills the room");

      const kept = await files();
      const before = puts();
      const rows: Field[] = many.flatMap((url): Field[] => [
        ["photo-slot", url],
        ["photo-alt", ""],
      ]);
      const text: Field[] = [
        ["kind", "note"],
        ["content", "A full album"],
      ];
      const tooMany = await edit(
        full.id,
        [
          ...text,
          ...rows,
          ["photo-slot", "new"],
          ["photo", png(2)],
          ["photo-alt", "One"],
          ["photo-slot", "new"],
          ["photo", png(3)],
          ["photo-alt", "Two"],
        ],
        "de",
      );
      assert.equal(tooMany.status, 400);
      assert.match(
        tooMany.html,
        new RegExp(`Der Beitrag hätte ${MAX_PHOTOS + 1} Fotos; ein Beitrag hat höchstens ${MAX_PHOTOS}`),
      );
      assert.deepEqual(await files(), kept, "the two uploads were removed");

      const overRequest: Field[] = Array.from({ length: MULTIPART_MAX_FILES + 1 }, (_, index): Field[] => [
        ["photo-slot", "new"],
        ["photo", png(2 + (index % 3))],
        ["photo-alt", `Bird ${index}`],
      ]).flat();
      const tooManyFiles = await edit(full.id, [...text, ...overRequest], "fr");
      assert.equal(tooManyFiles.status, 413);
      assert.match(
        tooManyFiles.html,
        new RegExp(`trop de fichiers \\(${MULTIPART_MAX_FILES} au plus à la fois\\)`),
      );
      assert.deepEqual(await files(), kept, "the files read before the limit were removed");

      assert.deepEqual(
        (await storedPhotos(full.url)).map((photo) => photo.url),
        many,
        "the post's photos are unchanged",
      );
      assert.equal(puts(), before, "no copy was edited");
    });
  });
}
