// Decision 0037: a feed is fetched the way a well-behaved reader fetches it, from a real HTTP
// server on 127.0.0.1: validators sent back and a 304 parsing nothing, the site's caching headers and
// Retry-After honoured within bounds, permanent moves stored and temporary ones not, 410 stopping the
// feed, compressed bodies decoded, oversized bodies cut off while streaming, private addresses refused.
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { hold, listen, type RunningServer } from "../../../dev/sandbox/http-kit.ts";
import {
  type FeedFetchOptions,
  type FeedFetchResult,
  fetchFeed,
} from "../../../src/sources/feeds/http/fetch-feed.ts";
import { TestClock } from "../../helpers/clock.ts";

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Example</title><id>urn:x</id></feed>`;
const MB = 1024 * 1024;

type Route = (request: IncomingMessage, response: ServerResponse) => unknown;

describe("fetching a feed politely", () => {
  let server: RunningServer;
  let routes: Map<string, Route>;
  let seen: IncomingMessage[];
  let clock: TestClock;
  let options: FeedFetchOptions;

  const url = (path: string) => `${server.url}${path}`;
  const route = (path: string, handler: Route) => routes.set(path, handler);
  const expectKind = <K extends FeedFetchResult["kind"]>(result: FeedFetchResult, kind: K) => {
    assert.equal(
      result.kind,
      kind,
      `expected ${kind}, got ${JSON.stringify({ ...result, body: undefined })}`,
    );
    return result as Extract<FeedFetchResult, { kind: K }>;
  };

  before(async () => {
    server = await listen(async (request, response) => {
      seen.push(request);
      const handler = routes.get(new URL(request.url ?? "/", "http://x").pathname);
      if (!handler) {
        response.writeHead(404).end();
        return;
      }
      await handler(request, response);
    });
  });
  after(() => server.close());
  beforeEach(() => {
    routes = new Map();
    seen = [];
    clock = new TestClock();
    options = { policy: { allowPrivate: true }, now: clock.now, timeoutMs: 10_000 };
  });

  it("sends its validators back, and a 304 answers not-modified with nothing to parse", async () => {
    route("/feed.xml", (request, response) => {
      if (request.headers["if-none-match"] === '"v1"' || request.headers["if-modified-since"]) {
        response.writeHead(304, { etag: '"v1"' }).end();
        return;
      }
      response.writeHead(200, {
        "content-type": "application/atom+xml",
        etag: '"v1"',
        "last-modified": "Sat, 01 Jun 2024 10:00:00 GMT",
      });
      response.end(ATOM);
    });
    const first = expectKind(await fetchFeed({ url: url("/feed.xml") }, options), "fetched");
    assert.equal(Buffer.from(first.body).toString(), ATOM);
    assert.equal(first.contentType, "application/atom+xml");
    assert.deepEqual(first.validators, { etag: '"v1"', lastModified: "Sat, 01 Jun 2024 10:00:00 GMT" });
    assert.equal(seen[0]?.headers["if-none-match"], undefined);
    assert.match(seen[0]?.headers["user-agent"] ?? "", /^possekit-feed-fetcher\//);

    const second = expectKind(
      await fetchFeed({ url: url("/feed.xml"), ...first.validators, failures: 3 }, options),
      "not-modified",
    );
    assert.equal(seen[1]?.headers["if-none-match"], '"v1"');
    assert.equal(seen[1]?.headers["if-modified-since"], "Sat, 01 Jun 2024 10:00:00 GMT");
    assert.deepEqual(second.validators, first.validators);
    assert.equal(second.failures, 0, "a success ends the run of failures");
    assert.equal(second.nextFetchAt, clock.now() + 300_000);
    assert.equal("body" in second, false);
  });

  it("sends only the validator it has (Last-Modified alone)", async () => {
    route("/lm.xml", (_request, response) => response.writeHead(304).end());
    const result = expectKind(
      await fetchFeed({ url: url("/lm.xml"), lastModified: "Sat, 01 Jun 2024 10:00:00 GMT" }, options),
      "not-modified",
    );
    assert.equal(seen[0]?.headers["if-modified-since"], "Sat, 01 Jun 2024 10:00:00 GMT");
    assert.equal(seen[0]?.headers["if-none-match"], undefined);
    assert.deepEqual(result.validators, { etag: null, lastModified: "Sat, 01 Jun 2024 10:00:00 GMT" });
  });

  for (const [headers, seconds, why] of [
    [{}, 300, "no caching headers: the feed's pollSeconds"],
    [{ "cache-control": "public, max-age=600" }, 600, "max-age within bounds"],
    [{ "cache-control": "max-age=10" }, 60, "max-age below a minute: a minute"],
    [{ "cache-control": "max-age=86400" }, 3600, "max-age above an hour: an hour"],
    [{ "cache-control": "max-age=600", age: "100" }, 500, "max-age less the Age already spent"],
    [{ "cache-control": "no-cache" }, 60, "no-cache: a minute"],
    [{ expires: "in 20 min" }, 1200, "Expires, counted from the server's Date"],
    [{ expires: "in 1 day" }, 3600, "Expires a day away: an hour"],
    [{ expires: "0" }, 60, "an invalid Expires is already expired: a minute"],
  ] as const) {
    it(`when to fetch again: ${why}`, async () => {
      route("/c.xml", (_request, response) => {
        const sent: Record<string, string> = { "content-type": "application/rss+xml" };
        for (const [name, value] of Object.entries(headers)) {
          // The server's clock is an hour off the test clock: Expires must be read against its Date.
          const serverNow = Date.parse("2030-01-01T00:00:00Z");
          const offset = value === "in 20 min" ? 1200_000 : value === "in 1 day" ? 86_400_000 : undefined;
          if (offset !== undefined) {
            sent.date = new Date(serverNow).toUTCString();
            sent[name] = new Date(serverNow + offset).toUTCString();
          } else sent[name] = value;
        }
        response.writeHead(200, sent).end("<rss/>");
      });
      const result = expectKind(await fetchFeed({ url: url("/c.xml") }, options), "fetched");
      assert.equal(result.nextFetchAt, clock.now() + seconds * 1000);
    });
  }

  it("the feed's own pollSeconds applies when the answer says nothing", async () => {
    route("/p.xml", (_request, response) => response.writeHead(200).end("<rss/>"));
    const result = await fetchFeed({ url: url("/p.xml"), pollSeconds: 900 }, options);
    assert.equal(result.nextFetchAt, clock.now() + 900_000);
  });

  it("429 with Retry-After in seconds waits that long", async () => {
    route("/busy", (_request, response) => response.writeHead(429, { "retry-after": "120" }).end());
    const result = expectKind(await fetchFeed({ url: url("/busy"), failures: 0 }, options), "backoff");
    assert.equal(result.reason, "rate-limited");
    assert.equal(result.status, 429);
    assert.equal(result.retryAfter, true);
    assert.equal(result.nextFetchAt, clock.now() + 120_000);
    assert.equal(result.failures, 1);
  });

  it("503 with Retry-After as an HTTP date waits until then", async () => {
    const until = new Date(clock.now() + 45 * 60_000).toUTCString();
    route("/down", (_request, response) => response.writeHead(503, { "retry-after": until }).end());
    const result = expectKind(await fetchFeed({ url: url("/down") }, options), "backoff");
    assert.equal(result.reason, "unavailable");
    assert.equal(result.nextFetchAt, Date.parse(until));
  });

  it("a Retry-After of 0 still waits a minute", async () => {
    route("/now", (_request, response) => response.writeHead(503, { "retry-after": "0" }).end());
    const result = await fetchFeed({ url: url("/now") }, options);
    assert.equal(result.nextFetchAt, clock.now() + 60_000);
  });

  it("other errors back off exponentially from pollSeconds, up to 6 hours", async () => {
    route("/broken", (_request, response) => response.writeHead(500).end());
    const waits: (number | null)[] = [];
    for (const failures of [0, 1, 2, 10]) {
      const result = expectKind(await fetchFeed({ url: url("/broken"), failures }, options), "backoff");
      assert.equal(result.reason, "http-error");
      assert.equal(result.failures, failures + 1);
      waits.push(result.nextFetchAt === null ? null : (result.nextFetchAt - clock.now()) / 1000);
    }
    assert.deepEqual(waits, [600, 1200, 2400, 6 * 3600]);
  });

  it("a site that does not answer backs off too", async () => {
    const spare = await listen(() => {});
    const closed = spare.url;
    await spare.close();
    const result = expectKind(await fetchFeed({ url: `${closed}/feed` }, options), "backoff");
    assert.equal(result.reason, "unreachable");
    assert.equal(result.retryAfter, false);
    assert.equal(result.nextFetchAt, clock.now() + 600_000);
  });

  it("a site that never answers, or stalls in the middle of the body, times out and backs off", async () => {
    route("/silent", async (_request, response) => {
      await hold(response, Number.POSITIVE_INFINITY);
    });
    route("/stalls", async (_request, response) => {
      response.writeHead(200, { "content-type": "application/rss+xml" });
      response.write("<rss><channel>");
      await hold(response, Number.POSITIVE_INFINITY);
    });
    for (const path of ["/silent", "/stalls"]) {
      const result = expectKind(
        await fetchFeed({ url: url(path) }, { ...options, timeoutMs: 300 }),
        "backoff",
      );
      assert.equal(result.reason, "timeout", path);
      assert.equal(result.nextFetchAt, clock.now() + 600_000);
    }
  });

  it("301 and 308 give the new URL to store; the answer is read in the same fetch", async () => {
    route("/old", (_request, response) => response.writeHead(301, { location: "/older" }).end());
    route("/older", (_request, response) => response.writeHead(308, { location: url("/new") }).end());
    route("/new", (_request, response) => response.writeHead(200).end("<rss/>"));
    const result = expectKind(await fetchFeed({ url: url("/old") }, options), "fetched");
    assert.equal(result.movedTo, url("/new"));
    assert.equal(result.url, url("/new"));
  });

  it("302 and 307 are followed but not stored, nor is a permanent move after a temporary one", async () => {
    route("/tmp", (_request, response) => response.writeHead(302, { location: "/perm" }).end());
    route("/perm", (_request, response) => response.writeHead(301, { location: "/here" }).end());
    route("/t307", (_request, response) => response.writeHead(307, { location: "/here" }).end());
    route("/here", (_request, response) => response.writeHead(200).end("<rss/>"));
    for (const path of ["/tmp", "/t307"]) {
      const result = expectKind(await fetchFeed({ url: url(path) }, options), "fetched");
      assert.equal(result.movedTo, undefined, path);
      assert.equal(result.url, url("/here"));
    }
  });

  it("a permanent move answered by a 304 is stored as well", async () => {
    route("/m", (_request, response) => response.writeHead(301, { location: "/m2" }).end());
    route("/m2", (request, response) =>
      response.writeHead(request.headers["if-none-match"] === '"a"' ? 304 : 200).end(),
    );
    const result = expectKind(await fetchFeed({ url: url("/m"), etag: '"a"' }, options), "not-modified");
    assert.equal(result.movedTo, url("/m2"));
  });

  it("410 Gone stops the feed and says why", async () => {
    route("/gone", (_request, response) => response.writeHead(410).end("bye"));
    const result = expectKind(await fetchFeed({ url: url("/gone") }, options), "gone");
    assert.equal(result.nextFetchAt, null);
    assert.match(result.message, /410 Gone.*no longer fetched/);
  });

  it("404 is an error to retry later, not the end of the feed", async () => {
    const result = expectKind(await fetchFeed({ url: url("/missing") }, options), "backoff");
    assert.equal(result.status, 404);
  });

  for (const [coding, encode] of [
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const) {
    it(`asks for compression and decodes a ${coding} body`, async () => {
      route("/z", (request, response) => {
        response.writeHead(200, { "content-encoding": coding, "content-type": "application/rss+xml" });
        response.end(encode(Buffer.from(ATOM)));
        assert.match(String(request.headers["accept-encoding"]), new RegExp(coding));
      });
      const result = expectKind(await fetchFeed({ url: url("/z") }, options), "fetched");
      assert.equal(Buffer.from(result.body).toString(), ATOM);
    });
  }

  it("a corrupt or unknown encoding is refused as bad content", async () => {
    route("/corrupt", (_request, response) => {
      response.writeHead(200, { "content-encoding": "gzip" }).end("this is not gzip at all");
    });
    route("/compress", (_request, response) => {
      response.writeHead(200, { "content-encoding": "compress" }).end("xx");
    });
    for (const path of ["/corrupt", "/compress"]) {
      const result = expectKind(await fetchFeed({ url: url(path) }, options), "refused");
      assert.equal(result.reason, "bad-content", path);
    }
  });

  it("an image where the feed should be is refused as bad content", async () => {
    route("/img", (_request, response) =>
      response.writeHead(200, { "content-type": "image/png" }).end("PNG"),
    );
    const result = expectKind(await fetchFeed({ url: url("/img") }, options), "refused");
    assert.equal(result.reason, "bad-content");
  });

  it("a 10 MB feed is refused with a clear error", async () => {
    route("/big", (_request, response) => {
      response.writeHead(200, { "content-type": "application/rss+xml" });
      response.end(Buffer.alloc(10 * MB, "a"));
    });
    const result = expectKind(await fetchFeed({ url: url("/big") }, options), "refused");
    assert.equal(result.reason, "too-large");
    assert.match(result.message, /larger than 5 MB/);
  });

  it("the cap counts decompressed bytes: 10 MB gzipped into a few kilobytes is refused", async () => {
    const bomb = gzipSync(Buffer.alloc(10 * MB, "a"));
    assert.ok(bomb.length < 50_000);
    route("/bomb", (_request, response) => {
      response.writeHead(200, { "content-encoding": "gzip", "content-length": bomb.length });
      response.end(bomb);
    });
    const result = expectKind(await fetchFeed({ url: url("/bomb") }, options), "refused");
    assert.equal(result.reason, "too-large");
  });

  it("an oversized body is cut off while it streams: the server cannot send it all", async () => {
    // The server would send 64 MB; it counts what the socket accepted before the reader hung up.
    const total = 64 * MB;
    let written = 0;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    route("/endless", async (_request, response) => {
      response.writeHead(200, { "content-type": "application/rss+xml" });
      response.on("close", closed);
      const chunk = Buffer.alloc(64 * 1024, "b");
      while (written < total && !response.destroyed) {
        if (!response.write(chunk)) {
          await new Promise<void>((resolve) => {
            const done = () => {
              response.off("drain", done);
              response.off("close", done);
              resolve();
            };
            response.on("drain", done);
            response.on("close", done);
          });
        }
        if (!response.destroyed) written += chunk.length;
      }
      response.end();
    });
    const result = expectKind(await fetchFeed({ url: url("/endless") }, options), "refused");
    assert.equal(result.reason, "too-large");
    await connectionClosed;
    // 5 MB read, plus what the kernel's socket buffers held on both sides (about 3 MB here).
    assert.ok(written < 20 * MB, `the server wrote ${written} bytes before the connection closed`);
  });

  it("a feed on 127.0.0.1 is refused unless fetch.allowPrivate, without a request", async () => {
    route("/private", (_request, response) => response.writeHead(200).end("<rss/>"));
    const result = expectKind(
      await fetchFeed({ url: url("/private") }, { ...options, policy: {} }),
      "refused",
    );
    assert.equal(result.reason, "private-address");
    assert.match(result.message, /fetch\.allowPrivate/);
    assert.equal(seen.length, 0);
    expectKind(await fetchFeed({ url: url("/private") }, options), "fetched");
  });

  it("a redirect to a private address is refused", async () => {
    const inside = await listen((_request, response) => {
      response.writeHead(200).end("secret");
    });
    let reached = 0;
    inside.server.on("request", () => reached++);
    try {
      route("/jump", (_request, response) =>
        response.writeHead(302, { location: `${inside.url}/admin` }).end(),
      );
      // The first hop is allowed (the user's own site); the redirect leaves it for another private one.
      const result = expectKind(
        await fetchFeed({ url: url("/jump") }, { ...options, policy: { ownSite: `${server.url}/` } }),
        "refused",
      );
      assert.equal(result.reason, "private-address");
      assert.equal(reached, 0);
    } finally {
      await inside.close();
    }
  });

  it("asks for feeds by their own types first, then XML and JSON, then a page", async () => {
    route("/feed.xml", (_request, response) => response.writeHead(200).end(ATOM));
    const result = expectKind(await fetchFeed({ url: url("/feed.xml") }, options), "fetched");
    assert.equal(
      seen[0]?.headers.accept,
      "application/atom+xml, application/rss+xml, application/feed+json, application/rdf+xml;q=0.9, " +
        "application/json;q=0.9, application/xml;q=0.8, text/xml;q=0.8, text/html;q=0.7, */*;q=0.1",
    );
    assert.equal("movedTo" in result, false, "no redirect, no URL to store");
  });

  it("a 304 with a new ETag replaces the stored one and keeps the other validator", async () => {
    route("/v2", (_request, response) => response.writeHead(304, { etag: '"v2"' }).end());
    const result = expectKind(
      await fetchFeed(
        { url: url("/v2"), etag: '"v1"', lastModified: "Sat, 01 Jun 2024 10:00:00 GMT" },
        options,
      ),
      "not-modified",
    );
    assert.deepEqual(result.validators, { etag: '"v2"', lastModified: "Sat, 01 Jun 2024 10:00:00 GMT" });
  });

  it("an error says which URL answered what, and whether the site named its own wait", async () => {
    route("/quiet-500", (_request, response) => response.writeHead(500, "").end());
    const missing = expectKind(await fetchFeed({ url: url("/missing") }, options), "backoff");
    assert.equal(missing.message, `${url("/missing")} answered 404 Not Found`);
    assert.equal(missing.retryAfter, false);
    const quiet = expectKind(await fetchFeed({ url: url("/quiet-500") }, options), "backoff");
    assert.equal(quiet.message, `${url("/quiet-500")} answered 500`);
  });

  it("an empty answer, or media whatever the case of its type, is refused and tried again later", async () => {
    route("/empty", (_request, response) =>
      response.writeHead(200, { "content-type": "application/rss+xml" }).end(),
    );
    route("/photo", (_request, response) =>
      response.writeHead(200, { "content-type": "Image/PNG ; name=feed" }).end("PNG"),
    );
    const empty = expectKind(await fetchFeed({ url: url("/empty") }, options), "refused");
    assert.equal(empty.reason, "bad-content");
    assert.equal(empty.message, `${url("/empty")}: the answer is empty, not a feed`);
    const photo = expectKind(await fetchFeed({ url: url("/photo"), failures: 1 }, options), "refused");
    assert.equal(photo.message, `${url("/photo")}: the answer is image/png, not a feed`);
    assert.equal(photo.failures, 2);
    assert.equal(photo.nextFetchAt, clock.now() + 1_200_000);
  });

  it("an address that is not a URL, or a redirect loop, is refused and tried again later", async () => {
    route("/loop", (_request, response) => response.writeHead(302, { location: "/loop" }).end());
    const invalid = expectKind(await fetchFeed({ url: "not a url" }, options), "refused");
    assert.equal(invalid.reason, "invalid-url");
    assert.equal(invalid.nextFetchAt, clock.now() + 600_000);
    const loop = expectKind(await fetchFeed({ url: url("/loop") }, options), "refused");
    assert.equal(loop.reason, "too-many-redirects");
    assert.equal(loop.failures, 1);
    assert.ok(loop.message.length > 0);
  });

  it("the caller's cancellation ends the fetch with the caller's reason, not a verdict on the feed", async () => {
    route("/slow", async (_request, response) => {
      await hold(response, Number.POSITIVE_INFINITY);
    });
    const controller = new AbortController();
    const shutdown = new Error("shutting down");
    const fetching = fetchFeed({ url: url("/slow") }, { ...options, signal: controller.signal });
    while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(shutdown);
    await assert.rejects(fetching, (error) => error === shutdown);
  });
});
