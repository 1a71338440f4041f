// Decision 0054: the owner writes a note, and an article with a photo and its alt text, on the
// compose page (a multipart form, no JavaScript); each is stored through the host's Micropub code and
// copied to the Mastodon sandbox once, by the scheduler. Editing the article from the page edits the
// copy; deleting it (after the confirmation page) deletes the copy. Bad input (an over-long post, a
// photo over media.maxBytes, an empty post, a missing or forged CSRF token) gets a message in the
// reader's language on the page, and nothing is stored: no post, no file.
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { describe, it } from "node:test";
import { jpegBytes } from "../fakes/photo-server.ts";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { composeAsOwner } from "./compose-as-owner.ts";

const MAX_BYTES = 1_000;
const STATUS = /^\/api\/v1\/statuses\/\d+$/;

function composeForm(fields: Record<string, string | string[]>, photo?: Uint8Array<ArrayBuffer>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
  // (A browser sends an empty file input as a part with filename=""; undici's FormData cannot, so the
  // browser test covers that.)
  if (photo) form.append("photo", new Blob([photo], { type: "image/jpeg" }), "cat.jpg");
  return form;
}

for (const engine of engines) {
  describe(`the compose page writes, edits and deletes posts through Micropub (${engine.name})`, () => {
    const owner = composeAsOwner(engine, { media: { maxBytes: MAX_BYTES } });
    const { page } = owner;
    const publish = (form: FormData, csrf: string | null = owner.session.csrf, language = "en") =>
      page(
        csrf === null ? "/compose" : `/compose?_csrf=${encodeURIComponent(csrf)}`,
        { method: "POST", body: form },
        language,
      );
    const urlencoded = (path: string, fields: Record<string, string | string[]>, language = "en") => {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(fields))
        for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
      return page(path, { method: "POST", body }, language);
    };
    const postCount = async () => {
      const result = await owner.world.app.server.host.database?.query<{ count: string }>(
        "SELECT count(*)::text AS count FROM posts",
      );
      return Number(result?.rows[0]?.count);
    };
    const storedFiles = async () => {
      const folder = owner.world.app.server.host.media.folder;
      assert.ok(folder);
      return (await readdir(folder).catch(() => [])).length;
    };
    const postOf = async (location: string | null) => {
      const id = /\/syndicate\/posts\/(\d+)$/.exec(location ?? "")?.[1];
      assert.ok(id, `redirected to the post's results page, not ${location}`);
      const post = await owner.world.app.server.host.posts?.findById(id);
      assert.ok(post);
      return post;
    };

    it("publishes a note and an article with a photo and alt text, each copied once", async () => {
      const { target } = owner.world;
      const form = await page("/compose");
      assert.equal(form.status, 200);
      assert.match(form.html, /enctype="multipart\/form-data"/);
      assert.ok(form.html.includes(`value="${target.uid}"`), "the targets are checkboxes");

      const note = await publish(
        composeForm({ kind: "note", content: "A note from the page", "mp-syndicate-to[]": target.uid }),
      );
      assert.equal(note.status, 303, note.html);
      const notePost = await postOf(note.location);
      assert.equal(notePost.properties.content, "A note from the page");
      assert.equal(notePost.properties.name, undefined, "a note has no title");
      assert.equal(notePost.properties.photo, undefined);

      const article = await publish(
        composeForm(
          {
            kind: "article",
            name: "Cats of the week",
            content: "Seven cats, one sofa.",
            category: "cats, indieweb, cats",
            "mp-photo-alt": "A grey cat asleep on a red sofa",
            "mp-syndicate-to[]": target.uid,
          },
          jpegBytes,
        ),
      );
      assert.equal(article.status, 303, article.html);
      const articlePost = await postOf(article.location);
      assert.equal(articlePost.properties.name, "Cats of the week");
      assert.deepEqual(articlePost.properties.category, ["cats", "indieweb"]);
      const [photo] = articlePost.properties.photo as Array<{ url: string; alt?: string }>;
      assert.equal(photo?.alt, "A grey cat asleep on a red sofa");
      assert.ok(photo?.url.includes("/media/"), "the upload is in the media store");

      await until("both copies are out", async () => {
        const [a, b] = await Promise.all([
          owner.world.properties(notePost.url),
          owner.world.properties(articlePost.url),
        ]);
        return Array.isArray(a?.syndication) && Array.isArray(b?.syndication);
      });
      assert.equal(target.sandbox.statuses.length, 2, "one copy each");
      const copy = target.sandbox.statuses.find((status) => status.media.length > 0);
      assert.ok(copy, "the article's copy has its photo");
      assert.equal(copy.media[0]?.description, "A grey cat asleep on a red sofa");
      assert.match(copy.text, /Cats of the week/);

      // The results page and the Syndicate page offer Edit and Delete for the site's own posts.
      const results = await page(`/posts/${articlePost.id}`);
      assert.ok(results.html.includes(`/syndicate/posts/${articlePost.id}/edit`));
      assert.ok(results.html.includes(`/syndicate/posts/${articlePost.id}/delete`));
      const list = await page("");
      assert.ok(list.html.includes(`/syndicate/posts/${notePost.id}/edit`));
      assert.ok(list.html.includes(`href="/syndicate/compose"`), "the Write tab");
    });

    it("edits the article from the page, and the copy follows", async () => {
      const post = await owner.world.app.server.host.posts?.findById(
        String(
          (
            await owner.world.app.server.host.database?.query<{ id: string }>(
              "SELECT id::text AS id FROM posts WHERE properties->>'name' = 'Cats of the week'",
            )
          )?.rows[0]?.id,
        ),
      );
      assert.ok(post);
      const edit = await page(`/posts/${post.id}/edit`);
      assert.equal(edit.status, 200);
      assert.ok(edit.html.includes("Seven cats, one sofa."), "the form holds the post's text");
      assert.ok(edit.html.includes('value="Cats of the week"'));

      // Preview on the edit form: the new title as the copy would show it, the form still the edit form.
      const previewed = await urlencoded(`/compose/preview?post=${post.id}`, {
        _csrf: owner.session.csrf,
        kind: "article",
        name: "Cats of the fortnight",
        content: "Seven cats, one sofa.",
      });
      assert.equal(previewed.status, 200);
      assert.ok(previewed.html.includes(`action="/syndicate/posts/${post.id}/edit?_csrf=`));
      assert.match(previewed.html, /class="copy-text">Cats of the fortnight/);
      assert.equal(
        (await owner.world.properties(post.url)).name,
        "Cats of the week",
        "a preview changes nothing",
      );

      // Without the CSRF token nothing changes.
      const forged = await urlencoded(`/posts/${post.id}/edit`, {
        kind: "article",
        name: "Cats",
        content: "Forged",
      });
      assert.equal(forged.status, 403);
      assert.equal((await owner.world.properties(post.url)).content, "Seven cats, one sofa.");

      const saved = await urlencoded(`/posts/${post.id}/edit`, {
        _csrf: owner.session.csrf,
        kind: "article",
        name: "Cats of the fortnight",
        content: "Eight cats now, one sofa.",
        category: "cats, indieweb",
        "mp-photo-alt": "A grey cat asleep on a red sofa",
      });
      assert.equal(saved.status, 303, saved.html);
      assert.equal((await owner.world.properties(post.url)).content, "Eight cats now, one sofa.");
      assert.equal((await owner.world.properties(post.url)).name, "Cats of the fortnight");
      await until("the copy is edited", async () => owner.world.requests("PUT", STATUS).length === 1);
      const copy = owner.world.target.sandbox.statuses.find((status) => status.media.length > 0);
      // An article's copy on Mastodon is its title and link: the new title is what it shows.
      assert.match(copy?.text ?? "", /Cats of the fortnight/);
      assert.equal(owner.world.requests("PUT", STATUS).length, 1, "edited once");
    });

    it("deletes the article after asking, and the copy is deleted", async () => {
      const row = await owner.world.app.server.host.database?.query<{ id: string }>(
        "SELECT id::text AS id FROM posts WHERE properties->>'name' = 'Cats of the fortnight'",
      );
      const post = await owner.world.app.server.host.posts?.findById(String(row?.rows[0]?.id));
      assert.ok(post);
      const ask = await page(`/posts/${post.id}/delete`);
      assert.equal(ask.status, 200);
      assert.match(ask.html, /Delete this post\?/);
      assert.equal(
        (await owner.world.app.server.host.posts?.findByUrl(post.url))?.deleted,
        false,
        "asking deletes nothing",
      );

      const forged = await urlencoded(`/posts/${post.id}/delete`, { _csrf: "not-the-token" });
      assert.equal(forged.status, 403);
      assert.equal((await owner.world.app.server.host.posts?.findByUrl(post.url))?.deleted, false);

      const done = await urlencoded(`/posts/${post.id}/delete`, { _csrf: owner.session.csrf });
      assert.equal(done.status, 303);
      assert.equal((await owner.world.app.server.host.posts?.findByUrl(post.url))?.deleted, true);
      await until("the copy is deleted", async () => owner.world.requests("DELETE", STATUS).length === 1);
      assert.ok(
        owner.world.target.sandbox.statuses.find((status) => status.media.length > 0)?.deletedAt,
        "the copy is gone",
      );
    });

    it("refuses bad input with a message in the reader's language and keeps nothing", async () => {
      const { target } = owner.world;
      const posts = await postCount();
      const files = await storedFiles();
      const statuses = target.sandbox.statuses.length;

      const long = await publish(
        composeForm({ content: "x".repeat(50_001), "mp-syndicate-to[]": target.uid }),
        owner.session.csrf,
        "de",
      );
      assert.equal(long.status, 400);
      assert.match(long.html, /Der Text hat 50,001 Zeichen/);
      assert.ok(
        long.html.includes(`value="${target.uid}" data-preview checked`),
        "the form keeps what was ticked",
      );

      const big = new Uint8Array(MAX_BYTES * 3);
      big.set(jpegBytes.subarray(0, 4));
      const photo = await publish(
        composeForm({ content: "Too big a cat", "mp-photo-alt": "A cat" }, big),
        owner.session.csrf,
        "fr",
      );
      assert.equal(photo.status, 413);
      assert.match(
        photo.html,
        /Le fichier est plus grand que ce que ce serveur accepte \(0\.001 Mo au plus\)/,
      );

      const empty = await publish(composeForm({ content: "   " }), owner.session.csrf, "fr");
      assert.equal(empty.status, 400);
      assert.match(empty.html, /Le billet est vide/);

      // Refused after its photo was stored: the photo goes with it.
      const noTitle = await publish(
        composeForm({ kind: "article", content: "Body", "mp-photo-alt": "A cat" }, jpegBytes),
      );
      assert.equal(noTitle.status, 400);
      assert.match(noTitle.html, /An article needs a title/);

      const altAlone = await publish(composeForm({ content: "Words", "mp-photo-alt": "A cat" }));
      assert.equal(altAlone.status, 400);

      const missing = await publish(composeForm({ content: "No token" }, jpegBytes), null, "de");
      assert.equal(missing.status, 403);
      assert.match(missing.html, /abgelaufen|anderen Website/);
      const wrong = await publish(composeForm({ content: "Forged token" }, jpegBytes), "forged");
      assert.equal(wrong.status, 403);

      assert.equal(await postCount(), posts, "no post stored");
      assert.equal(await storedFiles(), files, "no file left behind");
      assert.equal(target.sandbox.statuses.length, statuses, "nothing copied");
    });

    it("previews the text each ticked target gets, without JavaScript and as an htmx fragment", async () => {
      const { target } = owner.world;
      const posts = await postCount();
      const fields = {
        _csrf: owner.session.csrf,
        kind: "note",
        content: "Preview me #cats",
        "mp-syndicate-to[]": target.uid,
      };
      const plain = await urlencoded("/compose/preview", fields);
      assert.equal(plain.status, 200);
      assert.match(
        plain.html,
        /<textarea id="compose-content"[^>]*>Preview me #cats<\/textarea>/,
        "the form keeps the text",
      );
      assert.ok(plain.html.includes(`data-uid="${target.uid}"`), "the target's preview is shown");
      assert.match(plain.html, /copy-text/);
      const fragment = await page("/compose/preview", {
        method: "POST",
        body: new URLSearchParams({
          kind: "note",
          content: "Preview me #cats",
          "mp-syndicate-to[]": target.uid,
        }),
        headers: { "hx-request": "true", "x-csrf-token": owner.session.csrf },
      });
      assert.equal(fragment.status, 200);
      assert.doesNotMatch(fragment.html, /<html/);
      assert.ok(fragment.html.includes(`data-uid="${target.uid}"`));
      assert.equal(await postCount(), posts, "a preview stores nothing");
    });
  });
}
