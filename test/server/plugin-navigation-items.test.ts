// Plug-in contract (spec §2.4, §4.3 rule 5): navigationItems as one object or an array, translated
// by the host, aria-current on the active one, requiresDatabase items hidden without a database.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser, type NavLink, navigationOf } from "./pages.ts";

async function navigation(server: TestServer, path: string, language = "en"): Promise<NavLink[]> {
  const { cookie } = await server.signIn();
  const response = await fetch(`${server.url}${path}`, {
    headers: browser({ cookie, "accept-language": language }),
  });
  assert.equal(response.status, 200, path);
  const links = navigationOf(await response.text());
  assert.ok(links, `${path} has a navigation`);
  return links;
}

for (const engine of engines) {
  describe(`navigation items given as an array, on ${engine.name}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ engine, config: { plugins: [] }, plugins: [new TestPlugin()] });
    });
    after(() => server.close());

    it("shows every item, translated, with aria-current only on the page being shown", async () => {
      assert.deepEqual(await navigation(server, "/test-mount/page"), [
        { href: "/test-mount/page", text: "Test page", current: true },
        { href: "/test-mount/notes", text: "Test notes", current: false },
        { href: "/status", text: "Status", current: false },
      ]);
    });

    it("translates the items' locale keys into the page's language", async () => {
      const german = await navigation(server, "/test-mount/page", "de");
      assert.deepEqual(
        german.map((link) => link.text),
        ["Testseite", "Testnotizen", "Status"],
      );
      const french = await navigation(server, "/test-mount/page", "fr-FR,fr;q=0.9");
      assert.deepEqual(
        french.map((link) => link.text),
        ["Page de test", "Notes de test", "État"],
      );
    });

    it("moves aria-current to the status page when that is shown", async () => {
      const links = await navigation(server, "/status");
      assert.deepEqual(
        links.filter((link) => link.current).map((link) => link.href),
        ["/status"],
      );
    });
  });
}

describe("navigation items given as one object", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      config: { plugins: [] },
      plugins: [new TestPlugin({ id: "single-item", mountPath: "/single", navigation: "object" })],
    });
  });
  after(() => server.close());

  it("adds that one item", async () => {
    assert.deepEqual(await navigation(server, "/single/page"), [
      { href: "/single/page", text: "Test page", current: true },
      { href: "/status", text: "Status", current: false },
    ]);
  });
});

describe("navigation without a database (application.database: false)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] }, plugins: [new TestPlugin()] });
  });
  after(() => server.close());

  it("hides the items that require a database and keeps the others", async () => {
    assert.deepEqual(
      (await navigation(server, "/test-mount/page")).map((link) => link.href),
      ["/test-mount/page", "/status"],
    );
  });
});
