// Decision 0060: the edit form adds a photo with its alt text, replaces one and removes one, through
// the host's Micropub code (a multipart update); each time the post's stored photos are what the form
// said, the Mastodon sandbox copy's media follow (a kept photo keeps its media id, a new or replaced
// one is uploaded, a dropped one is detached; descriptions are the alt texts), the attempt records
// the photos it sent, and a photo the post no longer names leaves the media store. Bad input (a
// photo over media.maxBytes, a file that is not a photo, alt text without a photo, a missing or
// forged CSRF token) is refused in the reader's language, and nothing changes: no photo, no file, no
// edit of the copy.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jpegBytes } from "../fakes/photo-server.ts";
import { pngBytes } from "../fakes/png.ts";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { composeAsOwner, type Field, multipart } from "./compose-as-owner.ts";

const MAX_BYTES = 1_000;
const STATUS = /^\/api\/v1\/statuses\/\d+$/;

const jpeg = { bytes: new Uint8Array(jpegBytes), type: "image/jpeg" };
const png = { bytes: new Uint8Array(pngBytes(2, 2)), type: "image/png" };

for (const engine of engines) {
  describe(`the edit form adds, replaces and removes a post's photos (${engine.name})`, () => {
    const owner = composeAsOwner(engine, { media: { maxBytes: MAX_BYTES } });
    const { page } = owner;
    let postUrl = "";
    let postId = "";
    const edit = (fields: Field[], csrf: string | null = owner.session.csrf, language = "en") =>
      page(
        `/posts/${postId}/edit${csrf === null ? "" : `?_csrf=${encodeURIComponent(csrf)}`}`,
        { method: "POST", body: multipart(fields) },
        language,
      );
    const text: Field[] = [
      ["kind", "note"],
      ["content", "Cats on the sofa"],
    ];
    const storedPhotos = () => owner.storedPhotos(postUrl);
    const files = owner.mediaFiles;
    const copy = () => {
      const status = owner.world.target.sandbox.statuses.find((each) =>
        each.text.includes("Cats on the sofa"),
      );
      assert.ok(status, "the copy is on the sandbox");
      return status;
    };
    const copyMedia = () => copy().media.map((item) => ({ id: item.id, description: item.description }));
    const puts = () => owner.world.requests("PUT", STATUS).length;
    const latestSent = async () => {
      const result = await owner.world.app.server.host.database?.query<{ sent: unknown }>(
        `SELECT sent FROM syndication_attempts WHERE post_id = $1::bigint AND outcome = 'syndicated'
          ORDER BY started_at DESC, id DESC LIMIT 1`,
        [postId],
      );
      const sent = result?.rows[0]?.sent;
      return (typeof sent === "string" ? JSON.parse(sent) : sent) as {
        photos: Array<{ url: string; alt: string | null }>;
      };
    };
    const editedOnce = async (before: number) => {
      await until("the copy is edited", async () => puts() === before + 1);
      // Settled: the run that edited it has recorded its attempt.
      await until("the edit is recorded", async () => {
        const result = await owner.world.app.server.host.database?.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM syndication_attempts WHERE post_id = $1::bigint AND outcome = 'sending'",
          [postId],
        );
        return result?.rows[0]?.n === 0;
      });
    };

    it("publishes a note with one photo, copied with its alt text", async () => {
      const published = await page(`/compose?_csrf=${encodeURIComponent(owner.session.csrf)}`, {
        method: "POST",
        body: multipart([
          ...text,
          ["photo", jpeg],
          ["mp-photo-alt", "A grey cat"],
          ["mp-syndicate-to[]", owner.world.target.uid],
        ]),
      });
      assert.equal(published.status, 303, published.html);
      postId = /\/posts\/(\d+)$/.exec(published.location ?? "")?.[1] ?? "";
      const post = await owner.world.app.server.host.posts?.findById(postId);
      assert.ok(post);
      postUrl = post.url;
      await until("the copy is out", async () =>
        Array.isArray((await owner.world.properties(postUrl))?.syndication),
      );
      assert.deepEqual(
        copyMedia().map((item) => item.description),
        ["A grey cat"],
      );

      const form = await page(`/posts/${postId}/edit`);
      const [photo] = await storedPhotos();
      assert.ok(photo);
      assert.ok(
        form.html.includes(`<img class="edit-photo-thumb" src="${photo.url}" alt="A grey cat"`),
        "a thumbnail",
      );
      assert.ok(form.html.includes(`name="photo-remove" value="${photo.url}"`), "a remove box");
      assert.match(form.html, /enctype="multipart\/form-data"/);
      assert.ok(
        form.html.includes(`?_csrf=${encodeURIComponent(owner.session.csrf)}`),
        "the token in the action",
      );
    });

    it("adds a second photo with its alt text: the copy keeps the first media and gets the new one", async () => {
      const [first] = await storedPhotos();
      assert.ok(first);
      const [firstMedia] = copyMedia();
      const before = puts();
      const saved = await edit([
        ...text,
        ["photo-slot", first.url],
        ["photo-alt", "A grey cat, asleep"],
        ["photo-slot", "new"],
        ["photo", png],
        ["photo-alt", "A ginger cat"],
      ]);
      assert.equal(saved.status, 303, saved.html);
      const photos = await storedPhotos();
      assert.equal(photos.length, 2);
      assert.deepEqual(photos[0], { url: first.url, alt: "A grey cat, asleep" });
      assert.equal(photos[1]?.alt, "A ginger cat");
      assert.ok(photos[1]?.url.endsWith(".png"));
      await editedOnce(before);
      const media = copyMedia();
      assert.equal(media.length, 2);
      assert.deepEqual(media[0], { id: firstMedia?.id, description: "A grey cat, asleep" }, "the same media");
      assert.notEqual(media[1]?.id, firstMedia?.id);
      assert.equal(media[1]?.description, "A ginger cat");
      assert.deepEqual(
        (await latestSent()).photos,
        photos.map((photo) => ({ url: photo.url, alt: photo.alt })),
        "what was sent: the new photos and alts",
      );
    });

    it("replaces the first photo: new media for it, the second kept, the old file gone", async () => {
      const [first, second] = await storedPhotos();
      assert.ok(first && second);
      const [, secondMedia] = copyMedia();
      const before = puts();
      const oldName = first.url.slice(first.url.lastIndexOf("/") + 1);
      assert.ok((await files()).includes(oldName));
      const saved = await edit([
        ...text,
        ["photo-slot", first.url],
        ["photo", png],
        ["photo-alt", "A black cat"],
        ["photo-slot", second.url],
        ["photo-alt", second.alt],
        ["photo-slot", "new"],
        ["photo-alt", ""],
      ]);
      assert.equal(saved.status, 303, saved.html);
      const photos = await storedPhotos();
      assert.equal(photos.length, 2);
      assert.notEqual(photos[0]?.url, first.url, "the first is a new file");
      assert.equal(photos[0]?.alt, "A black cat");
      assert.deepEqual(photos[1], second);
      assert.ok(!(await files()).includes(oldName), "the replaced photo left the media store");
      await editedOnce(before);
      const media = copyMedia();
      assert.equal(media.length, 2);
      assert.ok(!media.some((item) => item.id === "") && media[0]?.id !== secondMedia?.id);
      assert.equal(media[0]?.description, "A black cat");
      assert.deepEqual(media[1], secondMedia, "the second keeps its media");
      assert.deepEqual((await latestSent()).photos, photos);
    });

    it("removes one photo: the copy detaches its media and the file leaves the media store", async () => {
      const [first, second] = await storedPhotos();
      assert.ok(first && second);
      const [firstMedia] = copyMedia();
      const before = puts();
      const filesBefore = await files();
      const saved = await edit([
        ...text,
        ["photo-slot", first.url],
        ["photo-alt", first.alt],
        ["photo-slot", second.url],
        // A file chosen for a photo that is removed: not used, so not kept.
        ["photo", jpeg],
        ["photo-alt", second.alt],
        ["photo-remove", second.url],
      ]);
      assert.equal(saved.status, 303, saved.html);
      assert.deepEqual(await storedPhotos(), [first]);
      const secondName = second.url.slice(second.url.lastIndexOf("/") + 1);
      const left = await files();
      assert.ok(!left.includes(secondName), "the removed photo left the media store");
      assert.equal(left.length, filesBefore.length - 1, "the unused upload was not kept");
      await editedOnce(before);
      assert.deepEqual(copyMedia(), [firstMedia]);
      assert.deepEqual((await latestSent()).photos, [first]);
    });

    it("keeps a dropped photo in the media store while another post names it", async () => {
      const [first] = await storedPhotos();
      assert.ok(first);
      const name = first.url.slice(first.url.lastIndexOf("/") + 1);
      await owner.world.app.server.host.posts?.create({
        properties: { content: "The same photo, elsewhere", photo: [first.url] },
      });
      const before = puts();
      const saved = await edit([
        ...text,
        ["photo-slot", first.url],
        ["photo", png],
        ["photo-alt", "A white cat"],
      ]);
      assert.equal(saved.status, 303, saved.html);
      const [now] = await storedPhotos();
      assert.ok(now && now.url !== first.url && now.alt === "A white cat");
      assert.ok((await files()).includes(name), "still named by the other post: kept");
      await editedOnce(before);
    });

    it("refuses bad input in the reader's language and changes nothing", async () => {
      const photos = await storedPhotos();
      const [first] = photos;
      assert.ok(first);
      const kept = await files();
      const before = puts();
      const row: Field[] = [
        ["photo-slot", first.url],
        ["photo-alt", first.alt],
      ];

      const big = new Uint8Array(MAX_BYTES * 3);
      big.set(jpegBytes.subarray(0, 4));
      const tooBig = await edit(
        [
          ...text,
          ...row,
          ["photo-slot", "new"],
          ["photo", { bytes: big, type: "image/jpeg" }],
          ["photo-alt", "Big"],
        ],
        owner.session.csrf,
        "fr",
      );
      assert.equal(tooBig.status, 413);
      assert.match(
        tooBig.html,
        /Le fichier est plus grand que ce que ce serveur accepte \(0\.001 Mo au plus\)/,
      );

      const notPhoto = await edit(
        [
          ...text,
          ...row,
          ["photo-slot", "new"],
          ["photo", { bytes: new TextEncoder().encode("just words, not a photo"), type: "image/jpeg" }],
          ["photo-alt", "Words"],
        ],
        owner.session.csrf,
        "de",
      );
      assert.equal(notPhoto.status, 415);
      assert.match(notPhoto.html, /Die Datei ist keine, die dieser Server hier annimmt/);

      // A new photo row with alt text and no file; a valid upload in the same form goes with the refusal.
      const altAlone = await edit(
        [
          ...text,
          ["photo-slot", first.url],
          ["photo", jpeg],
          ["photo-alt", "Replaced"],
          ["photo-slot", "new"],
          ["photo-alt", "A cat"],
        ],
        owner.session.csrf,
        "fr",
      );
      assert.equal(altAlone.status, 400);
      assert.match(altAlone.html, /Il y a un texte alternatif mais pas de photo/);

      const missing = await edit(
        [...text, ...row, ["photo-slot", "new"], ["photo", png], ["photo-alt", "No token"]],
        null,
        "de",
      );
      assert.equal(missing.status, 403);
      assert.match(missing.html, /abgelaufen|anderen Website/);
      const forged = await edit(
        [...text, ...row, ["photo-slot", "new"], ["photo", png], ["photo-alt", "Forged"]],
        "forged",
      );
      assert.equal(forged.status, 403);

      assert.deepEqual(await storedPhotos(), photos, "the post's photos are unchanged");
      assert.deepEqual((await files()).sort(), [...kept].sort(), "no file left behind");
      assert.equal(puts(), before, "the copy is not edited");
    });
  });
}
