// Services say "wait until" in their own ways; each becomes the seconds to wait. And an HTML error
// page from a proxy reads as its status once, not as the page's text run together.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { refusal, retryAfterSeconds } from "../../src/syndicators/shared/http.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const now = Date.parse("2026-11-23T14:00:00.000Z");
const answer = (status: number, headers: Record<string, string>, body = "") =>
  new Response(body, { status, headers });

describe("rate-limit signals become the seconds to wait", () => {
  it("Retry-After as a delay and as an HTTP date", () => {
    assert.equal(retryAfterSeconds(answer(503, { "retry-after": "120" }), now), 120);
    assert.equal(
      retryAfterSeconds(answer(429, { "retry-after": "Mon, 23 Nov 2026 14:05:00 GMT" }), now),
      300,
    );
  });

  it("Mastodon's X-RateLimit-Reset, an ISO time with microseconds", () => {
    const headers = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "2026-11-23T14:05:00.000000Z" };
    assert.equal(retryAfterSeconds(answer(429, headers), now), 300);
  });

  it("the Bluesky PDS's ratelimit-reset in epoch seconds, and the IETF draft's delay", () => {
    const epoch = String(now / 1000 + 90);
    assert.equal(retryAfterSeconds(answer(429, { "ratelimit-reset": epoch }), now), 90);
    assert.equal(retryAfterSeconds(answer(429, { "ratelimit-reset": "42" }), now), 42);
  });

  it("a reset header on an answer with requests left is no reason to wait", () => {
    const headers = { "x-ratelimit-remaining": "299", "x-ratelimit-reset": "2026-11-23T14:05:00.000Z" };
    assert.equal(retryAfterSeconds(answer(500, headers), now), undefined);
    assert.equal(retryAfterSeconds(answer(429, {}), now), undefined);
  });

  it("a reset already past means no wait, not a negative one", () => {
    assert.equal(retryAfterSeconds(answer(429, { "x-ratelimit-reset": "2026-11-23T13:00:00Z" }), now), 0);
  });
});

describe("Mastodon's rate limiter: the error says how long to wait", () => {
  let sandbox: MastodonSandbox;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
  });
  beforeEach(() => sandbox.clearBehaviour());
  after(() => sandbox.close());

  it("a 429 with X-RateLimit-Reset 10 minutes ahead: retryable, wait about 600 s", async () => {
    sandbox.rateLimit(new Date(Date.now() + 600_000));
    const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
    const error = await syndicator.syndicate(note(), publication, callOptions()).then(
      () => assert.fail("the call succeeded"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof SyndicationError);
    assert.equal(error.message, "Mastodon: 429 Too many requests");
    assert.equal(error.permanent, false);
    assert.ok(
      error.retryAfterSeconds !== undefined &&
        error.retryAfterSeconds >= 595 &&
        error.retryAfterSeconds <= 600,
      `retryAfterSeconds ${error.retryAfterSeconds}`,
    );
  });
});

describe("HTML error pages", () => {
  const target = { name: "Mastodon", signal: new AbortController().signal };
  const none = () => undefined;

  it("nginx's 502 page reads 502 Bad Gateway, once", async () => {
    const page =
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    const error = await refusal(target, answer(502, { "content-type": "text/html" }, page), none);
    assert.equal(error.message, "Mastodon: 502 Bad Gateway");
  });

  it("an HTML page without a title falls back to its heading, then to the status text", async () => {
    const headed = await refusal(
      target,
      answer(503, {}, "<!DOCTYPE html><body><h1>Service Unavailable</h1><p>Back soon</p></body>"),
      none,
    );
    assert.equal(headed.message, "Mastodon: 503 Service Unavailable");
    const bare = new Response("<html><body><p>x</p></body></html>", {
      status: 504,
      statusText: "Gateway Timeout",
    });
    assert.equal((await refusal(target, bare, none)).message, "Mastodon: 504 Gateway Timeout");
  });

  it("a plain-text body is still quoted", async () => {
    const error = await refusal(target, answer(500, {}, "database is down"), none);
    assert.equal(error.message, "Mastodon: 500 database is down");
  });
});

describe("the sandbox's finite delay", () => {
  it("answers after a delay that follows the handling (the request's body already read)", async () => {
    const sandbox = await startMastodonSandbox({ accessToken: "token" });
    try {
      sandbox.setBehaviour({ hangMs: 150, hangPhase: "after" });
      const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
      const url = await syndicator.syndicate(note(), publication, callOptions());
      assert.equal(url, sandbox.statuses.at(-1)?.url);
    } finally {
      await sandbox.close();
    }
  });
});
