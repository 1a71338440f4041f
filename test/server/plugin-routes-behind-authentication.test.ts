// Plug-in contract (spec §4.3): `routes` sit behind authentication, `routesPublic` do not,
// `routesWellKnown` answer under /.well-known/ whatever the mountPath, and paths are relative to it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";

for (const engine of engines) {
  describe(`plug-in routes on ${engine.name}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        engine,
        config: { plugins: [] },
        plugins: [new TestPlugin({ mountPath: "/deep/mount" })],
      });
    });
    after(() => server.close());

    it("refuses an API client without credentials with 401 unauthorized JSON", async () => {
      for (const method of ["GET", "POST"]) {
        const response = await fetch(`${server.url}/deep/mount/whoami`, { method });
        assert.equal(response.status, 401, method);
        assert.match(response.headers.get("content-type") ?? "", /application\/json/);
        assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer/);
        const body = await response.json();
        assert.equal(body.error, "unauthorized");
        assert.equal(typeof body.error_description, "string");
        assert.ok(body.error_description.length > 0);
      }
    });

    it("redirects a browser's GET without credentials to /session/login with 303, keeping where it was going", async () => {
      const response = await fetch(`${server.url}/deep/mount/page?x=1`, {
        headers: browser(),
        redirect: "manual",
      });
      assert.equal(response.status, 303);
      const location = new URL(response.headers.get("location") ?? "", server.url);
      assert.equal(location.pathname, "/session/login");
      assert.equal(location.searchParams.get("redirect"), "/deep/mount/page?x=1");
    });

    it("answers routes at mountPath + the router's path once authenticated, and not at the bare path", async () => {
      const token = await server.token();
      const mounted = await fetch(`${server.url}/deep/mount/whoami`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(mounted.status, 200);
      assert.equal((await mounted.json()).auth.method, "bearer");
      const bare = await fetch(`${server.url}/whoami`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(bare.status, 404);
    });

    it("answers routesPublic at mountPath without any credentials", async () => {
      const response = await fetch(`${server.url}/deep/mount/hello`);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { hello: "public", auth: null });
    });

    it("serves routesWellKnown under /.well-known/, not under the mountPath", async () => {
      const wellKnown = await fetch(`${server.url}/.well-known/test-plugin.json`);
      assert.equal(wellKnown.status, 200);
      assert.deepEqual(await wellKnown.json(), { wellKnown: true, mountPath: "/deep/mount" });
      const token = await server.token();
      const underMount = await fetch(`${server.url}/deep/mount/.well-known/test-plugin.json`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(underMount.status, 404);
    });

    it("runs the plug-in's own migration, so its routes can use the database", async () => {
      const token = await server.token();
      const first = await fetch(`${server.url}/deep/mount/notes`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(first.status, 200);
      assert.deepEqual(await first.json(), { notes: 1 });
      const second = await fetch(`${server.url}/deep/mount/notes`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.deepEqual(await second.json(), { notes: 2 });
    });
  });
}
