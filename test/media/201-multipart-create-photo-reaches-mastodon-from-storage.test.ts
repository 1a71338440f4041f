// A Micropub client posts a photo the way Micropub §3.6.1 allows without a media endpoint: one
// multipart/form-data request with the text fields and the file. The post names the stored file's
// URL; syndicating it uploads the very bytes to Mastodon, read from storage, with no HTTP request
// from the server to its own /media/ (the post's site is elsewhere: fetching would even be refused).
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { pngBytes } from "../fakes/png.ts";
import { engines } from "../helpers/databases.ts";
import { type MediaServer, startMediaServer } from "./media-server.ts";

const ME = "https://example.org/";
const png = pngBytes(64, 48);

function photoForm(fields: Array<[string, string]>, files: Array<[string, Uint8Array, string]>): FormData {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  for (const [name, bytes, type] of files)
    form.append(name, new Blob([new Uint8Array(bytes)], { type }), "upload");
  return form;
}

for (const engine of engines) {
  describe(`Micropub multipart create (${engine.name})`, () => {
    let mp: MediaServer;
    let sandbox: MastodonSandbox;
    let uid: string;
    let token: string;
    const ownRequests: string[] = [];

    before(async () => {
      sandbox = await startMastodonSandbox({ accessToken: "sandbox-token", user: "alice" });
      const syndicator = new MastodonSyndicator({
        url: sandbox.url,
        user: "alice",
        accessToken: "sandbox-token",
      });
      uid = syndicator.info.uid;
      mp = await startMediaServer(
        engine,
        {},
        {
          config: {
            plugins: ["@possekit/endpoint-syndicate"],
            publication: { me: ME, postUrlPattern: "{me}notes/{slug}/" },
          },
          plugins: [syndicator],
        },
      );
      mp.server.host.listening?.on("request", (request: IncomingMessage) =>
        ownRequests.push(request.url ?? ""),
      );
      token = await mp.server.token("create update");
    });
    after(async () => {
      await mp.close();
      await sandbox.close();
    });

    it("201: the post names the uploaded photo's URL (with its mp-photo-alt), beside text fields and a photo URL", async () => {
      const response = await mp.upload(
        photoForm(
          [
            ["h", "entry"],
            ["content", "Two photos"],
            ["category[]", "indieweb"],
            ["category[]", "photos"],
            ["mp-syndicate-to[]", uid],
          ],
          [["photo[]", png, "image/png"]],
        ),
        token,
        mp.micropub,
      );
      assert.equal(response.status, 201, await response.clone().text());
      const location = response.headers.get("location");
      assert.ok(location);
      const post = await mp.server.host.posts?.findByUrl(location);
      assert.ok(post);
      const [photo] = post.properties.photo as Array<{ url: string }>;
      assert.match(photo?.url ?? "", new RegExp(`^${mp.server.url}/media/[A-Za-z0-9_-]+\\.png$`));
      assert.deepEqual(post.properties.category, ["indieweb", "photos"]);
      assert.deepEqual(post.properties["mp-syndicate-to"], [uid]);
      assert.equal(post.properties.content, "Two photos");
      const served = await fetch(photo?.url ?? "");
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), new Uint8Array(png));
    });

    it("keeps uploaded and URL photos in the order sent, each with its mp-photo-alt", async () => {
      const form = new FormData();
      form.append("h", "entry");
      form.append("content", "Mixed");
      form.append("photo[]", "https://example.org/first.jpg");
      form.append("photo[]", new Blob([new Uint8Array(png)], { type: "image/png" }), "second.png");
      form.append("mp-photo-alt[]", "The first");
      form.append("mp-photo-alt[]", "The second");
      const response = await mp.upload(form, token, mp.micropub);
      assert.equal(response.status, 201, await response.clone().text());
      const post = await mp.server.host.posts?.findByUrl(response.headers.get("location") ?? "");
      const photos = post?.properties.photo as Array<{ url: string; alt?: string }>;
      assert.equal(photos.length, 2);
      assert.deepEqual(photos[0], { url: "https://example.org/first.jpg", alt: "The first" });
      assert.equal(photos[1]?.alt, "The second");
      assert.match(photos[1]?.url ?? "", /\/media\/[^/]+\.png$/);
    });

    it("Mastodon receives the uploaded bytes, read from storage: no request to our own media URL", async () => {
      const form = photoForm(
        [
          ["h", "entry"],
          ["content", "A photo for Mastodon"],
          ["mp-syndicate-to", uid],
          ["mp-photo-alt", "A grey gradient"],
        ],
        [["photo", png, "image/png"]],
      );
      const created = await mp.upload(form, token, mp.micropub);
      assert.equal(created.status, 201);
      const url = created.headers.get("location") ?? "";
      ownRequests.length = 0;
      const run = await fetch(`${mp.server.url}/syndicate?source_url=${encodeURIComponent(url)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      const result = (await run.json()) as { status: string };
      assert.equal(result.status, "syndicated", JSON.stringify(result));
      const status = sandbox.statuses.at(-1);
      assert.equal(status?.media.length, 1);
      assert.equal(status?.media[0]?.mimeType, "image/png");
      assert.equal(status?.media[0]?.description, "A grey gradient");
      assert.deepEqual(new Uint8Array(status?.media[0]?.bytes ?? []), new Uint8Array(png));
      assert.deepEqual(
        ownRequests.filter((path) => path.startsWith("/media/")),
        [],
        "the server fetched its own media over HTTP",
      );
    });

    it("401: a token with the media scope alone uploads to the media endpoint but creates no post, and keeps no file", async () => {
      const mediaOnly = await mp.server.token("media");
      const before = mp.files().length;
      const refused = await mp.upload(
        photoForm(
          [
            ["h", "entry"],
            ["content", "Not allowed"],
          ],
          [["photo", png, "image/png"]],
        ),
        mediaOnly,
        mp.micropub,
      );
      assert.equal(refused.status, 401);
      const body = (await refused.json()) as { error: string; scope: string };
      assert.equal(body.error, "insufficient_scope");
      assert.equal(body.scope, "create");
      assert.equal(mp.files().length, before);
    });

    it("a post refused after its files arrived takes them with it (400), and a wrong kind of file is 415", async () => {
      const before = mp.files().length;
      const refused = await mp.upload(
        photoForm(
          [
            ["h", "not a type!"],
            ["content", "Bad"],
          ],
          [["photo", png, "image/png"]],
        ),
        token,
        mp.micropub,
      );
      assert.equal(refused.status, 400);
      const wrongKind = await mp.upload(
        photoForm(
          [["h", "entry"]],
          [
            ["photo", png, "image/png"],
            ["video", png, "video/mp4"],
          ],
        ),
        token,
        mp.micropub,
      );
      assert.equal(wrongKind.status, 415);
      const notAFileField = await mp.upload(
        photoForm([["h", "entry"]], [["content", png, "image/png"]]),
        token,
        mp.micropub,
      );
      assert.equal(notAFileField.status, 400);
      assert.deepEqual(mp.files().length, before);
    });

    it("a multipart post with text fields only is a post like a form's", async () => {
      const response = await mp.upload(
        photoForm(
          [
            ["h", "entry"],
            ["content", "Just text"],
          ],
          [],
        ),
        token,
        mp.micropub,
      );
      assert.equal(response.status, 201);
    });
  });
}
