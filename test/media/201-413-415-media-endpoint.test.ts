// The Micropub media endpoint (W3C Micropub §3.6): a file in, 201 with its URL, the bytes served
// back as they were; too large (413) or not what it claims (415) leaves nothing behind; the served
// folder gives out nothing but its files.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pngBytes } from "../fakes/png.ts";
import { engines } from "../helpers/databases.ts";
import { formWith, type MediaServer, rawGet, startMediaServer } from "./media-server.ts";

const png = pngBytes(40, 30);
const MAX_BYTES = 20_000;

for (const engine of engines) {
  describe(`Micropub media endpoint (${engine.name})`, () => {
    let mp: MediaServer;
    let token: string;
    before(async () => {
      mp = await startMediaServer(engine, { maxBytes: MAX_BYTES });
      token = await mp.server.token("media");
    });
    after(() => mp.close());

    it("201: stores the file and answers its URL in Location, which serves the same bytes", async () => {
      // The client's name and type are not believed: the bytes are a PNG.
      const response = await mp.upload(
        formWith("file", png, "application/octet-stream", "holiday.bin"),
        token,
      );
      assert.equal(response.status, 201, await response.clone().text());
      const location = response.headers.get("location");
      assert.ok(location);
      assert.match(location, new RegExp(`^${mp.server.url}/media/[A-Za-z0-9_-]+\\.png$`));
      const served = await fetch(location);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get("content-type"), "image/png");
      assert.equal(served.headers.get("x-content-type-options"), "nosniff");
      assert.match(served.headers.get("cache-control") ?? "", /max-age=31536000/);
      assert.match(served.headers.get("content-security-policy") ?? "", /sandbox/);
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), new Uint8Array(png));
      assert.equal(mp.files().length, 1);
    });

    it("the token needs the scope media or create; update alone is 401 insufficient_scope", async () => {
      const withCreate = await mp.upload(
        formWith("file", png, "image/png", "a.png"),
        await mp.server.token("create"),
      );
      assert.equal(withCreate.status, 201);
      const before = mp.files().length;
      const refused = await mp.upload(
        formWith("file", png, "image/png", "a.png"),
        await mp.server.token("update"),
      );
      assert.equal(refused.status, 401);
      const body = (await refused.json()) as { error: string; scope: string };
      assert.equal(body.error, "insufficient_scope");
      assert.equal(body.scope, "media");
      const anonymous = await mp.upload(formWith("file", png, "image/png", "a.png"), null);
      assert.equal(anonymous.status, 401);
      assert.equal(mp.files().length, before);
    });

    it("413: a file over media.maxBytes is refused as JSON, and no file (not even a part) is left", async () => {
      const before = mp.files().length;
      const big = new Uint8Array(MAX_BYTES + 5000);
      big.set(png);
      const response = await mp.upload(formWith("file", big, "image/png", "big.png"), token);
      assert.equal(response.status, 413);
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "payload_too_large");
      assert.match(body.error_description, /media\.maxBytes/);
      assert.equal(mp.files().length, before);
    });

    it("413: a huge upload is cut off, not read to its end", async () => {
      const before = mp.files().length;
      const boundary = "possekit-huge-upload";
      const { hostname, port } = new URL(mp.server.url);
      const total = 200 * 1024 * 1024;
      let written = 0;
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            hostname,
            port,
            path: "/micropub/media",
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              accept: "application/json",
              "content-type": `multipart/form-data; boundary=${boundary}`,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        // The server closes the connection after answering: writing on may then fail.
        req.on("error", () => {});
        req.on("close", () => resolve(-1));
        req.write(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.png"\r\nContent-Type: image/png\r\n\r\n`,
        );
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (written < total) {
            written += chunk.length;
            if (!req.write(chunk)) {
              req.once("drain", pump);
              return;
            }
          }
          req.end(`\r\n--${boundary}--\r\n`);
        };
        pump();
        setTimeout(() => reject(new Error("no answer within 20 s")), 20_000).unref();
      });
      assert.equal(status, 413);
      assert.ok(written < total / 4, `the client could send ${written} of ${total} bytes before the answer`);
      assert.equal(mp.files().length, before);
    });

    it("415: a PHP script sent as image/jpeg is refused by its bytes, and not kept", async () => {
      const before = mp.files().length;
      const script = new TextEncoder().encode("<?php system($_GET['c']); ?>");
      const response = await mp.upload(formWith("file", script, "image/jpeg", "photo.jpg"), token);
      assert.equal(response.status, 415);
      assert.equal(((await response.json()) as { error: string }).error, "unsupported_media_type");
      assert.equal(mp.files().length, before);
    });

    it("415: SVG (which can carry a script) is refused", async () => {
      const svg = new TextEncoder().encode(
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>',
      );
      const response = await mp.upload(formWith("file", svg, "image/svg+xml", "logo.svg"), token);
      assert.equal(response.status, 415);
    });

    it("400: no part named file, or a body that is not multipart (415)", async () => {
      const wrongName = await mp.upload(formWith("photo", png, "image/png", "a.png"), token);
      assert.equal(wrongName.status, 400);
      const json = await fetch(mp.media, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(json.status, 415);
    });

    it("404 for every path that is not a stored file: no listing, no climbing out of the folder", async () => {
      const stored = mp.files().find((name) => name.endsWith(".png"));
      assert.ok(stored);
      // A real image just outside the folder: what a climb out of it would find.
      writeFileSync(join(mp.server.host.hostConfig.media.folder, "..", "outside.png"), png);
      for (const path of [
        "/media/..%2foutside.png",
        "/media/%2e%2e%2foutside.png",
        "/media/%2E%2E%5Coutside.png",
        "/media/",
        "/media",
        "/media/..%2f..%2fpackage.json",
        "/media/%2e%2e/%2e%2e/package.json",
        "/media/..%5c..%5cpackage.json",
        "/media/../secret",
        `/media/${stored}/..%2f..%2fsecret`,
        "/media/.upload-aaaaaaaaaaaaaaaaaaaaaaaa",
        `/media/${stored.replace(".png", ".svg")}`,
        "/media/%00.png",
      ]) {
        const response = await rawGet(mp.server.url, path);
        assert.equal(response.status, 404, `${path} answered ${response.status}`);
        assert.doesNotMatch(response.body, /possekit|secret|"name"/i, path);
      }
      assert.equal((await rawGet(mp.server.url, `/media/${stored}`)).status, 200);
    });
  });
}
