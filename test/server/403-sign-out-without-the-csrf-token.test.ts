// Decision 0018: another site's page could sign the user out with a bare form post (a nuisance
// that also hides what that site does next). Sign-out now needs the session's CSRF token, as every
// other change made with the session cookie does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser, cookieFrom } from "./pages.ts";

describe("sign-out needs the CSRF token", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
  });
  after(() => server.close());

  const signOut = (cookie: string, body: string, extra: Record<string, string> = {}) =>
    fetch(`${server.url}/session/logout`, {
      method: "POST",
      headers: browser({ cookie, "content-type": "application/x-www-form-urlencoded", ...extra }),
      body,
      redirect: "manual",
    });

  const stillSignedIn = async (cookie: string) => {
    const page = await fetch(`${server.url}/status`, { headers: browser({ cookie }), redirect: "manual" });
    return page.status === 200;
  };

  it("403 a sign-out from another site's form, without the token; the session goes on", async () => {
    const { cookie } = await server.signIn();
    for (const [body, extra] of [
      ["", { origin: "https://evil.example" }],
      ["", {}],
      ["_csrf=not-the-token-of-this-session", {}],
    ] as const) {
      const response = await signOut(cookie, body, extra);
      assert.equal(response.status, 403, `${body} ${JSON.stringify(extra)}`);
      assert.match(response.headers.get("content-type") ?? "", /^text\/html/, "a page for the browser");
      assert.equal(cookieFrom(response, "possekit_session"), null, "the session cookie is left alone");
      assert.ok(await stillSignedIn(cookie), "the session still works");
    }
  });

  it("403 as JSON for a script, without the token", async () => {
    const { cookie } = await server.signIn();
    const response = await fetch(`${server.url}/session/logout`, {
      method: "POST",
      headers: { cookie, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: "",
      redirect: "manual",
    });
    assert.equal(response.status, 403);
    assert.equal(((await response.json()) as { error: string }).error, "forbidden");
  });

  it("303 signs out with the token, in the form field or the X-CSRF-Token header", async () => {
    const first = await server.signIn();
    const byField = await signOut(first.cookie, new URLSearchParams({ _csrf: first.csrf }).toString());
    assert.equal(byField.status, 303);
    assert.equal(cookieFrom(byField, "possekit_session")?.value, "");
    assert.equal(await stillSignedIn(first.cookie), false);

    const second = await server.signIn();
    const byHeader = await signOut(second.cookie, "", { "x-csrf-token": second.csrf });
    assert.equal(byHeader.status, 303);
    assert.equal(await stillSignedIn(second.cookie), false);
  });

  it("303 to the sign-in page for a browser that is no longer signed in", async () => {
    const response = await signOut("", "");
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("location"), "/session/login");
  });
});
