// A maintained Micropub client library, micropub-helper (the one Quill-like web clients build on),
// against the real server: it finds the media endpoint in q=config, uploads a file there, and
// creates a post with a photo in one multipart request. Nothing here is our code on the client side.
import assert from "node:assert/strict";
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pngBytes } from "../fakes/png.ts";
import { engines } from "../helpers/databases.ts";
import { type MediaServer, startMediaServer } from "./media-server.ts";

interface MicropubHelper {
  query(type: string): Promise<Record<string, unknown>>;
  postMedia(file: unknown): Promise<string>;
  create(post: Record<string, unknown>, type?: "json" | "form" | "multipart"): Promise<string>;
  options: Record<string, string>;
}
const require = createRequire(import.meta.url);
const Micropub = require("micropub-helper") as new (options: Record<string, string>) => MicropubHelper;
// micropub-helper builds multipart bodies with the global FormData, and in Node expects the
// form-data package there (it installs it only where no FormData exists, i.e. before Node 18).
// Node's own FormData is swapped for it only while the library builds its body, synchronously,
// so the server in this process keeps Node's.
const FormDataPackage = require("form-data") as unknown as typeof FormData;
function withFormDataPackage<T>(call: () => Promise<T>): Promise<T> {
  const own = globalThis.FormData;
  globalThis.FormData = FormDataPackage;
  try {
    return call();
  } finally {
    globalThis.FormData = own;
  }
}

const png = pngBytes(32, 32);

for (const engine of engines) {
  describe(`micropub-helper uploads photos (${engine.name})`, () => {
    let mp: MediaServer;
    let client: MicropubHelper;
    let folder: string;
    let photoPath: string;
    before(async () => {
      mp = await startMediaServer(engine);
      folder = mkdtempSync(join(tmpdir(), "possekit-helper-"));
      photoPath = join(folder, "sunset.png");
      writeFileSync(photoPath, png);
      client = new Micropub({
        me: mp.server.host.publication.me,
        token: await mp.server.token("create media"),
        micropubEndpoint: mp.micropub,
      });
    });
    after(async () => {
      await mp.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it("finds the media endpoint in q=config and uploads a file there (201, Location)", async () => {
      const config = await client.query("config");
      assert.equal(config["media-endpoint"], mp.media);
      client.options.mediaEndpoint = String(config["media-endpoint"]);
      const location = await withFormDataPackage(() => client.postMedia(createReadStream(photoPath)));
      assert.match(location, new RegExp(`^${mp.server.url}/media/[A-Za-z0-9_-]+\\.png$`));
      const served = await fetch(location);
      assert.equal(served.headers.get("content-type"), "image/png");
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), new Uint8Array(png));
    });

    it("creates a post with a photo in one multipart request", async () => {
      const location = await withFormDataPackage(() =>
        client.create(
          {
            h: "entry",
            content: "Sunset from the hill",
            category: ["sky", "evening"],
            photo: createReadStream(photoPath),
          },
          "multipart",
        ),
      );
      const post = await mp.server.host.posts?.findByUrl(location);
      assert.ok(post, `no post at ${location}`);
      assert.equal(post.properties.content, "Sunset from the hill");
      assert.deepEqual(post.properties.category, ["sky", "evening"]);
      const [photo] = post.properties.photo as Array<{ url: string }>;
      const served = await fetch(photo?.url ?? "");
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), new Uint8Array(png));
    });
  });
}
