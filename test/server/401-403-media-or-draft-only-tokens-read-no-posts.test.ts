// Decision 0045: a token with only the media or draft scope could read every post, drafts included
// (Micropub q=source, q=category) and the syndication page's data. Such a token may upload (media) or
// create drafts (draft), and read the endpoint's configuration it needs for that (q=config,
// q=syndicate-to, q=post-types); reading posts needs create, update or delete (docs/security.md).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

for (const engine of engines) {
  describe(`media- and draft-only tokens read no posts (${engine.name})`, () => {
    let server: TestServer;
    let draftUrl: string;
    before(async () => {
      server = await startTestServer({ engine });
      const created = await fetch(`${server.url}/micropub`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await server.token("draft")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "h=entry&content=a+secret+draft&category=plans",
      });
      assert.equal(created.status, 201, await created.clone().text());
      draftUrl = created.headers.get("location") ?? "";
      assert.ok(draftUrl);
    });
    after(() => server.close());

    const get = async (path: string, scope: string, accept = "application/json") =>
      fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${await server.token(scope)}`, accept },
      });

    for (const scope of ["media", "draft", "media draft"]) {
      it(`a "${scope}" token reads neither posts, drafts nor categories (401 insufficient_scope)`, async () => {
        for (const path of [
          "/micropub?q=source",
          `/micropub?q=source&url=${encodeURIComponent(draftUrl)}`,
          "/micropub?q=category",
        ]) {
          const response = await get(path, scope);
          assert.equal(response.status, 401, `${path}: ${await response.clone().text()}`);
          const body = (await response.json()) as { error: string; scope: string };
          assert.equal(body.error, "insufficient_scope", path);
        }
      });

      it(`a "${scope}" token reads no syndication page or data (403 insufficient_scope)`, async () => {
        for (const path of ["/syndicate", "/syndicate/status", "/syndicate/targets"]) {
          const response = await get(path, scope);
          assert.equal(response.status, 403, `${path}: ${await response.clone().text()}`);
          assert.equal(((await response.json()) as { error: string }).error, "insufficient_scope", path);
        }
      });

      it(`a "${scope}" token still reads the configuration it needs`, async () => {
        for (const path of ["/micropub?q=config", "/micropub?q=syndicate-to", "/micropub?q=post-types"])
          assert.equal((await get(path, scope)).status, 200, path);
      });
    }

    it("create, update or delete reads posts; a signed-in session too", async () => {
      for (const scope of ["create", "update", "delete"]) {
        const response = await get(`/micropub?q=source&url=${encodeURIComponent(draftUrl)}`, scope);
        assert.equal(response.status, 200, scope);
        assert.equal((await get("/syndicate/status", scope)).status, 200, scope);
      }
      const { cookie } = await server.signIn();
      const page = await fetch(`${server.url}/syndicate`, { headers: { cookie, accept: "text/html" } });
      assert.equal(page.status, 200);
    });
  });
}
