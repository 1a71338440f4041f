// Decision 0044: multipart text fields were limited only to 1,000 fields of 1 MB each, so a
// token with the media or draft scope could make the server hold (and store) 20 MB where the same
// body form-encoded is a 413. The text fields of a multipart body now count against the form-encoded
// limit (application.bodyLimit) in total, and a body over it is refused with 413 and a JSON error as
// soon as the limit is passed, before the rest of the body is read.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { pngBytes } from "../fakes/png.ts";
import { engines } from "../helpers/databases.ts";
import { formWith, type MediaServer, startMediaServer } from "./media-server.ts";

const BODY_LIMIT = 100_000; // application.bodyLimit's default
const png = pngBytes(40, 30);

for (const engine of engines) {
  describe(`multipart text fields are bounded as a form-encoded body is (${engine.name})`, () => {
    let mp: MediaServer;
    before(async () => {
      mp = await startMediaServer(engine, { maxBytes: 1_000_000 });
    });
    after(() => mp.close());

    const refusedAs413 = async (response: Response) => {
      assert.equal(response.status, 413, await response.clone().text());
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "payload_too_large");
      assert.match(body.error_description, /text fields/);
    };

    it("refuses a post whose one text field is over the form limit, storing nothing", async () => {
      const form = new FormData();
      form.append("h", "entry");
      form.append("content", "x".repeat(BODY_LIMIT + 1));
      const count = async () => (await mp.server.host.posts?.list({ limit: 100 }))?.posts.length ?? 0;
      const before = await count();
      await refusedAs413(await mp.upload(form, await mp.server.token("draft create"), mp.micropub));
      assert.equal(await count(), before, "no post is stored");
    });

    it("refuses many small text fields whose total is over the form limit, with a file, leaving no file", async () => {
      const form = formWith("photo", png, "image/png", "a.png");
      form.append("h", "entry");
      for (let i = 0; i < 200; i++) form.append("category[]", `${i}-${"c".repeat(1000)}`);
      const files = mp.files().length;
      await refusedAs413(await mp.upload(form, await mp.server.token("create"), mp.micropub));
      assert.equal(mp.files().length, files, "the photo stored on the way is removed");
    });

    it("refuses the media endpoint's text fields over the form limit (a media-only token)", async () => {
      const form = formWith("file", png, "image/png", "a.png");
      form.append("note", "n".repeat(BODY_LIMIT + 1));
      await refusedAs413(await mp.upload(form, await mp.server.token("media")));
    });

    // A guard against a server that waits for the rest (it never comes), not a measure of time.
    it("answers 413 as soon as the limit is passed, before the rest of the body is sent", {
      timeout: 30_000,
    }, async () => {
      const token = await mp.server.token("media");
      const boundary = "----possekit-test-boundary";
      const { hostname, port } = new URL(mp.server.url);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            hostname,
            port,
            path: new URL(mp.media).pathname,
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": `multipart/form-data; boundary=${boundary}`,
              // Announces 50 MB; only the first fields are ever sent.
              "content-length": String(50_000_000),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on("error", (error) => {
          if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") reject(error);
        });
        for (let i = 0; i < 30; i++)
          req.write(
            `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${"v".repeat(10_000)}\r\n`,
          );
        // The request stays open: the server must answer without the rest.
      });
      assert.equal(status, 413);
    });
  });

  // application.bodyLimit set, below and above its default: the multipart text limit follows it.
  for (const bodyLimit of [5_000, 150_000])
    describe(`multipart text fields follow application.bodyLimit: ${bodyLimit} (${engine.name})`, () => {
      let mp: MediaServer;
      before(async () => {
        mp = await startMediaServer(
          engine,
          { maxBytes: 1_000_000 },
          { config: { application: { bodyLimit } } },
        );
      });
      after(() => mp.close());

      const send = async (length: number) => {
        const form = new FormData();
        form.append("h", "entry");
        form.append("content", "y".repeat(length));
        return mp.upload(form, await mp.server.token("create"), mp.micropub);
      };

      it("takes text fields up to the limit and refuses them past it, naming the limit", async () => {
        // The field's name and the other field count too: well under the limit is taken.
        const taken = await send(bodyLimit - 100);
        assert.ok([201, 202].includes(taken.status), `${taken.status} ${await taken.text()}`);
        const refused = await send(bodyLimit + 1);
        assert.equal(refused.status, 413);
        const body = (await refused.json()) as { error_description: string };
        assert.match(body.error_description, new RegExp(`over the ${bodyLimit.toLocaleString("en")} bytes`));
      });
    });
}
