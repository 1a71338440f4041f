// Without a database there is no ledger and no post service: every route of the Syndicate page
// answers 501 with a message that says why and what to do, in the reader's language.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const PAGE_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("the Syndicate page on a server without a database", () => {
  let server: TestServer;
  let cookie: string;
  let csrf: string;

  before(async () => {
    server = await startTestServer({ database: false });
    ({ cookie, csrf } = await server.signIn());
  });
  after(() => server.close());

  for (const path of [
    "/syndicate",
    "/syndicate/status",
    "/syndicate/posts/1",
    "/syndicate/posts?url=https%3A%2F%2Fexample.org%2F",
  ]) {
    it(`answers GET ${path} with 501 and a localised page`, async () => {
      const english = await fetch(`${server.url}${path}`, { headers: { cookie, accept: PAGE_ACCEPT } });
      assert.equal(english.status, 501);
      assert.match(await english.text(), /Syndication needs a database, and this server runs without one/);
      const german = await fetch(`${server.url}${path}`, {
        headers: { cookie, accept: PAGE_ACCEPT, "accept-language": "de" },
      });
      assert.equal(german.status, 501);
      assert.match(await german.text(), /Die Syndizierung braucht eine Datenbank/);
    });
  }

  for (const action of ["retry", "confirm"]) {
    it(`answers POST /syndicate/posts/1/${action} with 501 as JSON to an API client`, async () => {
      const response = await fetch(`${server.url}/syndicate/posts/1/${action}`, {
        method: "POST",
        headers: { cookie, "x-csrf-token": csrf, accept: "application/json" },
      });
      assert.equal(response.status, 501);
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "not_implemented");
      assert.match(body.error_description, /restart the server/);
    });
  }

  it("leaves Syndicate out of the navigation", async () => {
    const response = await fetch(`${server.url}/status`, { headers: { cookie, accept: PAGE_ACCEPT } });
    const nav = /<nav[^>]*>([\s\S]*?)<\/nav>/.exec(await response.text())?.[1] ?? "";
    assert.doesNotMatch(nav, /href="\/syndicate"/);
  });
});
