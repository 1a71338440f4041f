// Sign-in (decision 0002): a page with a password form; a wrong password gets 401 and a localised
// message; the right one a session cookie (HttpOnly, SameSite=Lax, Secure behind https); sign-out ends it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser, cookieFrom } from "./pages.ts";

function signIn(server: TestServer, password: string, fields: Record<string, string> = {}, language = "en") {
  return fetch(`${server.url}/session/login`, {
    method: "POST",
    headers: browser({ "content-type": "application/x-www-form-urlencoded", "accept-language": language }),
    body: new URLSearchParams({ password, ...fields }),
    redirect: "manual",
  });
}

describe("signing in and out", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
  });
  after(() => server.close());

  it("serves the sign-in page with a password form, localised", async () => {
    const response = await fetch(`${server.url}/session/login`, {
      headers: browser({ "accept-language": "de" }),
    });
    assert.equal(response.status, 200);
    const html = await response.text();
    assert.match(html, /<form method="post" action="\/session\/login">/);
    assert.match(html, /<input id="password" name="password" type="password"/);
    assert.match(html, /<label for="password">Passwort<\/label>/);
  });

  it("answers a wrong password with 401, the sign-in form again and a clear message in the user's language", async () => {
    const english = await signIn(server, "not the password");
    assert.equal(english.status, 401);
    assert.equal(cookieFrom(english, "possekit_session"), null);
    const englishPage = await english.text();
    assert.match(englishPage, /That password is not right\. Try again\./);
    assert.match(englishPage, /name="password"/);
    const french = await signIn(server, "not the password", {}, "fr");
    assert.equal(french.status, 401);
    assert.match(await french.text(), /Ce mot de passe n’est pas correct\. Réessayez\./);
  });

  it("answers a form without a password field with 401 too", async () => {
    const response = await fetch(`${server.url}/session/login`, {
      method: "POST",
      headers: browser({ "content-type": "application/x-www-form-urlencoded" }),
      body: "redirect=%2Fstatus",
      redirect: "manual",
    });
    assert.equal(response.status, 401);
  });

  it("gives the right password a session cookie that is HttpOnly and SameSite=Lax, and not Secure over http", async () => {
    const response = await signIn(server, server.password);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("location"), "/");
    const cookie = cookieFrom(response, "possekit_session");
    assert.ok(cookie, "a session cookie is set");
    assert.ok(cookie.attributes.includes("httponly"));
    assert.ok(cookie.attributes.includes("samesite=lax"));
    assert.ok(cookie.attributes.includes("path=/"));
    assert.ok(!cookie.attributes.includes("secure"));
    const status = await fetch(`${server.url}/status`, {
      headers: browser({ cookie: `possekit_session=${cookie.value}` }),
      redirect: "manual",
    });
    assert.equal(status.status, 200);
  });

  it("goes back to the local page it was sent from, never to another site", async () => {
    const local = await signIn(server, server.password, { redirect: "/status?tab=1" });
    assert.equal(local.headers.get("location"), "/status?tab=1");
    for (const foreign of ["//evil.example/", "/\\evil.example", "https://evil.example/"]) {
      const response = await signIn(server, server.password, { redirect: foreign });
      assert.equal(response.headers.get("location"), "/", foreign);
    }
  });

  it("signs out: the cookie is cleared, and the browser then lands on the sign-in page", async () => {
    const { cookie, csrf } = await server.signIn();
    const response = await fetch(`${server.url}/session/logout`, {
      method: "POST",
      headers: browser({ cookie, "content-type": "application/x-www-form-urlencoded" }),
      body: new URLSearchParams({ _csrf: csrf }),
      redirect: "manual",
    });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("location"), "/session/login");
    const cleared = cookieFrom(response, "possekit_session");
    assert.ok(cleared, "the session cookie is overwritten");
    assert.equal(cleared.value, "");
    const expires = cleared.attributes.find((attribute) => attribute.startsWith("expires="));
    assert.ok(expires && Date.parse(expires.slice("expires=".length)) < Date.now(), "the cookie has expired");
    const afterwards = await fetch(`${server.url}/status`, { headers: browser(), redirect: "manual" });
    assert.equal(afterwards.status, 303);
    assert.match(afterwards.headers.get("location") ?? "", /^\/session\/login/);
    // A copy of the cookie taken before signing out no longer works either: the session has ended.
    const replayed = await fetch(`${server.url}/status`, {
      headers: browser({ cookie }),
      redirect: "manual",
    });
    assert.equal(replayed.status, 303);
    assert.match(replayed.headers.get("location") ?? "", /^\/session\/login/);
  });
});

describe("signing in behind https (application.url https://…)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      database: false,
      config: { plugins: [], application: { url: "https://blog.example" } },
    });
  });
  after(() => server.close());

  it("marks the session cookie Secure", async () => {
    const response = await signIn(server, server.password);
    assert.equal(response.status, 303);
    const cookie = cookieFrom(response, "possekit_session");
    assert.ok(cookie?.attributes.includes("secure"));
  });
});
