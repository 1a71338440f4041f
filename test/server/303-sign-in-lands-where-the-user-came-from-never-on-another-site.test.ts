// Signing in (decision 0024) brings the user back to the page they came from: the page that sent
// them to sign in (?redirect=), else the page of this server they were on (the Referer). Never to
// another site, however the address is dressed up; and the sign-in page reminds where a generated
// password is kept.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";

describe("signing in lands on the page the user came from, and only on this server", () => {
  let server: TestServer;
  let generated: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
    generated = await startTestServer({ database: false, config: { plugins: [] }, env: { PASSWORD: "" } });
  });
  after(async () => {
    await server.close();
    await generated.close();
  });

  async function formRedirect(headers: Record<string, string>, query = ""): Promise<string | null> {
    const page = await fetch(`${server.url}/session/login${query}`, { headers: browser(headers) });
    const html = await page.text();
    return /name="redirect" value="([^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? null;
  }

  async function signInTo(redirect: string): Promise<string | null> {
    const response = await fetch(`${server.url}/session/login`, {
      method: "POST",
      headers: browser({ "content-type": "application/x-www-form-urlencoded" }),
      body: new URLSearchParams({ password: server.password, redirect }),
      redirect: "manual",
    });
    assert.equal(response.status, 303);
    return response.headers.get("location");
  }

  it("comes back to the page of this server the user was on (Referer), query included", async () => {
    assert.equal(
      await formRedirect({ referer: `${server.url}/syndicate?state=attention` }),
      "/syndicate?state=attention",
    );
    assert.equal(await signInTo("/syndicate?state=attention"), "/syndicate?state=attention");
  });

  it("prefers the page that sent the user to sign in, and ignores another site's Referer", async () => {
    assert.equal(
      await formRedirect({ referer: `${server.url}/status` }, "?redirect=%2Fsyndicate"),
      "/syndicate",
    );
    assert.equal(await formRedirect({ referer: "https://evil.example/syndicate" }), "/");
  });

  it("never sends anyone to another site (open-redirect attempts)", async () => {
    for (const attack of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example/",
      "/\t/evil.example/",
      "/\n/evil.example/",
      " //evil.example/",
      "javascript:alert(1)",
      "/session/login",
    ]) {
      assert.equal(await signInTo(attack), "/", JSON.stringify(attack));
      const shown = await formRedirect({}, `?redirect=${encodeURIComponent(attack)}`);
      assert.equal(shown, "/", `the form does not carry ${JSON.stringify(attack)}`);
    }
  });

  it("reminds where a generated password is kept, and says nothing of a chosen one", async () => {
    const page = await (await fetch(`${generated.url}/session/login`, { headers: browser() })).text();
    assert.match(page, /keeps it in [^<]*password\. Set PASSWORD to choose your own\./);
    const french = await (
      await fetch(`${generated.url}/session/login`, { headers: browser({ "accept-language": "fr" }) })
    ).text();
    assert.match(french, /Oublié\u202f\? Le serveur a généré le mot de passe/);
    const chosen = await (await fetch(`${server.url}/session/login`, { headers: browser() })).text();
    assert.doesNotMatch(chosen, /keeps it in/);
  });
});
