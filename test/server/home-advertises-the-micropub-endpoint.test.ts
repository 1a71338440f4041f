// GET / (decision 0001): with the Micropub endpoint plug-in installed (it always is), the home page
// advertises it in a Link header and a <link rel="micropub">, at its mountPath.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";

for (const [label, options, path] of [
  ["at its default mountPath", undefined, "/micropub"],
  ["at the mountPath of its options entry", { mountPath: "/mp" }, "/mp"],
] as const) {
  describe(`the home page advertising Micropub ${label}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        database: false,
        config: { plugins: [], ...(options ? { "@possekit/endpoint-micropub": options } : {}) },
      });
    });
    after(() => server.close());

    it(`sends Link: <…${path}>; rel="micropub" and the matching <link> element`, async () => {
      const response = await fetch(`${server.url}/`, { headers: browser() });
      assert.equal(response.status, 200);
      const endpoint = `${server.url}${path}`;
      // The first link; IndieAuth's follow (test/indieauth/metadata-and-discovery-links.test.ts).
      assert.equal(response.headers.get("link")?.split(", ")[0], `<${endpoint}>; rel="micropub"`);
      assert.ok((await response.text()).includes(`<link rel="micropub" href="${endpoint}">`));
    });

    it("sends the same Link header to API clients and on HEAD", async () => {
      for (const method of ["GET", "HEAD"]) {
        const response = await fetch(`${server.url}/`, { method });
        assert.equal(
          response.headers.get("link")?.split(", ")[0],
          `<${server.url}${path}>; rel="micropub"`,
          method,
        );
      }
    });
  });
}
