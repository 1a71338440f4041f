// Each Micropub action needs its scope; a token with only the draft scope creates drafts and nothing else.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { errorOf, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

for (const engine of engines) {
  describe(`Micropub scopes (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    it("creates a draft, whatever post-status asks for, with the draft scope alone", async () => {
      const draftOnly = await mp.server.token("draft");
      const response = await mp.postForm("h=entry&content=Draft+only&post-status=published", draftOnly);
      assert.equal(response.status, 201);
      const url = response.headers.get("location");
      assert.ok(url);
      const post = await mp.server.host.posts?.findByUrl(url);
      assert.equal(post?.status, "draft");
      assert.equal(post?.properties["post-status"], "draft");
    });

    it("needs the update scope to update", async () => {
      const url = await mp.create({ content: ["Scoped"] });
      const createOnly = await mp.server.token("create");
      const error = await errorOf(
        await mp.postJson({ action: "update", url, replace: { content: ["changed"] } }, createOnly),
      );
      // Micropub §3.8: 401 insufficient_scope, naming the scope needed.
      assert.equal(error.status, 401);
      assert.equal(error.error, "insufficient_scope");
      assert.match(error.description, /"update"/);
      assert.deepEqual((await mp.source(url)).content, ["Scoped"]);
    });

    it("needs the delete scope to delete and undelete", async () => {
      const url = await mp.create({ content: ["Keep me"] });
      const createAndUpdate = await mp.server.token("create update");
      for (const action of ["delete", "undelete"]) {
        const error = await errorOf(await mp.postForm({ action, url }, createAndUpdate));
        assert.equal(error.status, 401);
        assert.equal(error.error, "insufficient_scope");
        assert.match(error.description, /"delete"/);
      }
      assert.equal((await mp.server.host.posts?.findByUrl(url))?.deleted, false);
    });

    it("takes a multipart post (Micropub §3.6.1), text fields only, like a form", async () => {
      const form = new FormData();
      form.set("h", "entry");
      form.set("content", "with a file");
      const response = await fetch(mp.endpoint, {
        method: "POST",
        headers: { authorization: `Bearer ${mp.token}`, accept: "application/json" },
        body: form,
      });
      assert.equal(response.status, 201);
      assert.deepEqual((await mp.source(response.headers.get("location") ?? "")).content, ["with a file"]);
    });
  });
}
