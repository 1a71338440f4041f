// micropub.rocks server cases 500-503: deleting and undeleting posts, form-encoded and JSON.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { errorOf, ME, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

for (const engine of engines) {
  describe(`Micropub delete and undelete (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    const assertSuccess = async (response: Response) =>
      assert.ok([200, 204].includes(response.status), `${response.status} ${await response.text()}`);
    const assertGone = async (url: string) => {
      const error = await errorOf(await mp.query(`q=source&url=${encodeURIComponent(url)}`));
      assert.equal(error.status, 400);
      assert.match(error.description, /deleted/);
      assert.equal((await mp.server.host.posts?.findByUrl(url))?.deleted, true);
    };

    it("500 deletes a post (form-encoded)", async () => {
      const url = await mp.create({ content: ["This post will be deleted when the test succeeds."] });
      await assertSuccess(await mp.postForm({ action: "delete", url }));
      await assertGone(url);
    });

    it("501 deletes a post (JSON)", async () => {
      const url = await mp.create({ content: ["This post will be deleted when the test succeeds."] });
      await assertSuccess(await mp.postJson({ action: "delete", url }));
      await assertGone(url);
    });

    it("502 undeletes a post (form-encoded)", async () => {
      const url = await mp.create({
        content: ["This post will be deleted, and should be restored after undeleting it."],
      });
      await assertSuccess(await mp.postForm({ action: "delete", url }));
      await assertSuccess(await mp.postForm({ action: "undelete", url }));
      assert.deepEqual((await mp.source(url)).content, [
        "This post will be deleted, and should be restored after undeleting it.",
      ]);
    });

    it("503 undeletes a post (JSON)", async () => {
      const url = await mp.create({
        content: ["This post will be deleted, and should be restored after undeleting it."],
      });
      await assertSuccess(await mp.postJson({ action: "delete", url }));
      await assertSuccess(await mp.postJson({ action: "undelete", url }));
      assert.equal((await mp.server.host.posts?.findByUrl(url))?.deleted, false);
    });

    it("leaves deleted posts out of the listing and refuses to update them", async () => {
      const url = await mp.create({ content: ["Hidden when deleted"] });
      await assertSuccess(await mp.postJson({ action: "delete", url }));
      const list = (await (await mp.query("q=source&limit=100")).json()) as {
        items: { properties: { url: string[] } }[];
      };
      assert.equal(
        list.items.some((item) => item.properties.url[0] === url),
        false,
      );
      const error = await errorOf(await mp.postJson({ action: "update", url, replace: { content: ["x"] } }));
      assert.equal(error.status, 400);
      assert.match(error.description, /undelete it before updating/);
    });

    it("answers 400 invalid_request for an unknown URL or a missing url", async () => {
      const unknown = await errorOf(await mp.postForm({ action: "delete", url: `${ME}notes/never/` }));
      assert.equal(unknown.status, 400);
      assert.equal(unknown.error, "invalid_request");
      assert.match(unknown.description, /No post exists at/);
      const missing = await errorOf(await mp.postJson({ action: "undelete" }));
      assert.equal(missing.status, 400);
      assert.equal(missing.error, "invalid_request");
    });
  });
}
