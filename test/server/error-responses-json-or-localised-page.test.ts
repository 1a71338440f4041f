// Errors (decision 0004): API clients get JSON {error, error_description} with the right status; browsers
// get a localised error page; bodies are limited; no stack trace ever reaches a client.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";
import {
  configFolder,
  memoryLogger,
  pathFrom,
  type StartedHost,
  startHostFrom,
  TEST_PLUGIN_FILE,
} from "./start-host.ts";

const STACK_LINE = /\n\s+at .+:\d+:\d+/;

describe("error responses", () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer({
      database: false,
      config: { plugins: [], application: { bodyLimit: 1000 } },
      plugins: [new TestPlugin()],
    });
    token = await server.token();
  });
  after(() => server.close());

  it("answers an unknown path with 404 JSON for an API client", async () => {
    const response = await fetch(`${server.url}/no/such/page`);
    assert.equal(response.status, 404);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(await response.json(), {
      error: "not_found",
      error_description: "Nothing is at /no/such/page",
    });
  });

  it("answers a browser with a 404 page in German for Accept-Language: de", async () => {
    const response = await fetch(`${server.url}/no/such/page`, {
      headers: browser({ "accept-language": "de-DE,de;q=0.9" }),
    });
    assert.equal(response.status, 404);
    assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
    assert.equal(response.headers.get("content-language"), "de");
    const html = await response.text();
    assert.match(html, /<html lang="de">/);
    assert.match(html, /<h1>Fehler 404<\/h1>/);
    assert.match(html, /Diese Seite gibt es nicht\./);
    assert.match(html, /Zurück zur Startseite/);
  });

  it("answers a browser with a 404 page in French for Accept-Language: fr", async () => {
    const response = await fetch(`${server.url}/no/such/page`, {
      headers: browser({ "accept-language": "fr" }),
    });
    const html = await response.text();
    assert.match(html, /<html lang="fr">/);
    assert.match(html, /<h1>Erreur 404<\/h1>/);
    assert.match(html, /Cette page n’existe pas\./);
  });

  it("falls back to English for a language it does not have", async () => {
    const response = await fetch(`${server.url}/no/such/page`, {
      headers: browser({ "accept-language": "ja" }),
    });
    assert.match(await response.text(), /This page does not exist\./);
  });

  it("answers a JSON body over the body limit with 413", async () => {
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "x".repeat(2000) }),
    });
    assert.equal(response.status, 413);
    assert.equal((await response.json()).error, "payload_too_large");
  });

  it("answers a form body over the body limit with 413, before looking at credentials", async () => {
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ content: "x".repeat(2000) }),
    });
    assert.equal(response.status, 413);
  });

  it("answers malformed JSON with 400 invalid_request", async () => {
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: '{"content": "unterminated',
    });
    assert.equal(response.status, 400);
    const body = await response.json();
    assert.equal(body.error, "invalid_request");
    assert.doesNotMatch(JSON.stringify(body), STACK_LINE);
  });

  it("answers a body in a charset it cannot read with 415", async () => {
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json; charset=x-unknown" },
      body: "{}",
    });
    assert.equal(response.status, 415);
    assert.equal((await response.json()).error, "unsupported_media_type");
  });
});

describe("an error the server did not expect", () => {
  const folder = configFolder((dir) => ({
    application: { port: 0, database: false },
    plugins: [pathFrom(dir, TEST_PLUGIN_FILE)],
  }));
  const logger = memoryLogger();
  let started: StartedHost;
  let token: string;
  before(async () => {
    started = await startHostFrom(folder, { logger });
    token = await started.host.tokens.issue({ scope: ["create"], clientId: "test", lifetimeDays: 1 });
  });
  after(async () => {
    await started.close();
    folder.remove();
  });

  it("answers 500 server_error JSON without the message or a stack trace, and logs it", async () => {
    const response = await fetch(`${started.url}/test-mount/boom`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 500);
    const text = await response.text();
    assert.equal(JSON.parse(text).error, "server_error");
    assert.doesNotMatch(text, /srv\/secret|internal detail/);
    assert.doesNotMatch(text, STACK_LINE);
    assert.ok(
      logger.lines.some((line) => line.includes("Unhandled error") && line.includes("internal detail")),
    );
  });

  it("shows a browser a localised 500 page without the message or a stack trace", async () => {
    const response = await fetch(`${started.url}/test-mount/boom?token=${token}`, {
      headers: browser({ "accept-language": "de" }),
    });
    assert.equal(response.status, 500);
    const html = await response.text();
    assert.match(html, /Auf dem Server ist etwas schiefgegangen\./);
    assert.doesNotMatch(html, /srv\/secret|internal detail/);
    assert.doesNotMatch(html, STACK_LINE);
  });
});

describe("error pages with application.locale set", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      database: false,
      config: { plugins: [], application: { locale: "fr" } },
    });
  });
  after(() => server.close());

  it("uses the configured language whatever the browser asks for", async () => {
    const response = await fetch(`${server.url}/no/such/page`, {
      headers: browser({ "accept-language": "de" }),
    });
    assert.match(await response.text(), /Cette page n’existe pas\./);
  });
});
