// safeFetch's own promises against a real HTTP server on 127.0.0.1 (private addresses allowed here,
// except where the rule itself is tested): the body's size limit, declared and streamed, refused or
// truncated; decoding of gzip, deflate and br with the limit counted on the decoded bytes (a small
// compressed body that inflates past it is cut off); redirects followed, counted, recorded, or
// handed back (manual), never for a POST; and each failure named by its kind.
import assert from "node:assert/strict";
import type dns from "node:dns";
import type { LookupAddress } from "node:dns";
import { after, before, describe, it } from "node:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { hold, listen, type RunningServer } from "../../dev/sandbox/http-kit.ts";
import {
  isRefusedAddress,
  isUnderOwnSite,
  OutgoingFetchError,
  publicOnlyLookupVia,
  type SafeFetchOptions,
  safeFetch,
} from "../../src/net/safe-fetch.ts";

const local: SafeFetchOptions = { policy: { allowPrivate: true }, maxBytes: 1000, timeoutMs: 5000 };
const text = (body: Uint8Array) => Buffer.from(body).toString();

async function failure(promise: Promise<unknown>): Promise<OutgoingFetchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutgoingFetchError, `expected an OutgoingFetchError, got ${error}`);
    return error;
  }
  assert.fail("the fetch did not fail");
}

describe("safeFetch", () => {
  let server: RunningServer;
  let seen: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[];
  const encoded: Record<string, Buffer> = {
    gzip: gzipSync("hello gzip"),
    "x-gzip": gzipSync("hello x-gzip"),
    deflate: deflateSync("hello deflate"),
    br: brotliCompressSync("hello br"),
  };

  before(async () => {
    seen = [];
    server = await listen(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      seen.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const url = new URL(request.url ?? "/", "http://x");
      const param = (name: string) => url.searchParams.get(name) ?? "";
      switch (url.pathname) {
        case "/status":
          response.writeHead(Number(param("code")), "Said So", { "x-said": "so" });
          response.end(`status ${param("code")}`);
          return;
        case "/redirect": {
          const hops = Number(param("hops"));
          const location = hops > 0 ? `/redirect?hops=${hops - 1}` : "/status?code=200";
          response.writeHead(Number(param("code") || 302), { location });
          response.end();
          return;
        }
        case "/redirect-to":
          response.writeHead(302, { location: param("location") });
          response.end();
          return;
        case "/sized": {
          // n bytes; with a declared length unless chunked=1.
          const body = "x".repeat(Number(param("n")));
          response.writeHead(200, param("chunked") ? {} : { "content-length": String(body.length) });
          if (param("chunked")) for (const part of body.match(/.{1,100}/gs) ?? []) response.write(part);
          response.end(param("chunked") ? undefined : body);
          return;
        }
        case "/encoded": {
          const coding = param("coding");
          response.writeHead(200, { "content-encoding": param("as") || coding });
          response.end(encoded[coding] ?? Buffer.from(`plain ${coding}`));
          return;
        }
        case "/bomb":
          // 1 MB of zeros, a kilobyte or so on the wire.
          response.writeHead(200, { "content-encoding": "gzip" });
          response.end(gzipSync(Buffer.alloc(1_000_000)));
          return;
        case "/corrupt":
          response.writeHead(200, { "content-encoding": "gzip" });
          response.end(Buffer.concat([gzipSync("a").subarray(0, 10), Buffer.from("not gzip at all")]));
          return;
        case "/two-parts":
          // 600 bytes, then 600 more once the first have gone out: the limit falls inside the second chunk.
          response.writeHead(200);
          response.write("a".repeat(600), () => setTimeout(() => response.end("b".repeat(600)), 50));
          return;
        case "/hold":
          await hold(response, Number.POSITIVE_INFINITY);
          return;
        case "/break":
          response.writeHead(200, { "content-length": "100" });
          response.write("only part");
          setTimeout(() => response.destroy(), 20);
          return;
        default:
          response.writeHead(200, { "content-type": "text/plain" });
          response.end("hello");
      }
    });
  });
  after(() => server.close());

  it("answers any status with its text and headers, ok only for 2xx, naming itself possekit", async () => {
    for (const [code, ok] of [
      [200, true],
      [204, true],
      [299, true],
      [300, false],
      [404, false],
      [500, false],
    ] as const) {
      const answer = await safeFetch(`${server.url}/status?code=${code}`, local);
      assert.equal(answer.status, code);
      assert.equal(answer.ok, ok, String(code));
    }
    const answer = await safeFetch(`${server.url}/status?code=201`, local);
    assert.equal(answer.statusText, "Said So");
    assert.equal(answer.headers.get("x-said"), "so");
    assert.equal(text(answer.body), "status 201");
    assert.equal(answer.url, `${server.url}/status?code=201`);
    assert.deepEqual(answer.redirects, []);
    assert.equal(answer.truncated, false);
    assert.equal(seen.at(-1)?.headers["user-agent"], "possekit");
    assert.equal(seen.at(-1)?.method, "GET");
  });

  it("refuses a body whose declared length is over the limit, saying the length, and takes one at the limit", async () => {
    const error = await failure(safeFetch(`${server.url}/sized?n=1001`, local));
    assert.equal(error.kind, "too-large");
    assert.equal(error.declaredBytes, 1001);
    assert.match(error.message, /larger than 1000 bytes/);
    assert.equal((await safeFetch(`${server.url}/sized?n=1000`, local)).body.length, 1000);
  });

  it("refuses a streamed body once it passes the limit, with no declared length to tell", async () => {
    const error = await failure(safeFetch(`${server.url}/sized?n=1001&chunked=1`, local));
    assert.equal(error.kind, "too-large");
    assert.equal(error.declaredBytes, undefined);
    const whole = await safeFetch(`${server.url}/sized?n=1000&chunked=1`, local);
    assert.equal(whole.body.length, 1000);
    assert.equal(whole.truncated, false);
  });

  it("keeps the first maxBytes of a longer body when asked to truncate, declared or streamed", async () => {
    for (const chunked of ["", "1"]) {
      const cut = await safeFetch(`${server.url}/sized?n=1050&chunked=${chunked}`, {
        ...local,
        overflow: "truncate",
      });
      assert.equal(cut.body.length, 1000);
      assert.equal(cut.truncated, true);
      assert.equal(text(cut.body), "x".repeat(1000));
      const whole = await safeFetch(`${server.url}/sized?n=1000&chunked=${chunked}`, {
        ...local,
        overflow: "truncate",
      });
      assert.equal(whole.truncated, false);
    }
  });

  it("truncates inside a later chunk, keeping what came before it", async () => {
    const cut = await safeFetch(`${server.url}/two-parts`, { ...local, overflow: "truncate" });
    assert.equal(text(cut.body), `${"a".repeat(600)}${"b".repeat(400)}`);
    assert.equal(cut.truncated, true);
  });

  it("decodes gzip, x-gzip, deflate and br when asked, and asks for them", async () => {
    for (const coding of ["gzip", "x-gzip", "deflate", "br"]) {
      const answer = await safeFetch(`${server.url}/encoded?coding=${coding}`, {
        ...local,
        decompress: true,
      });
      assert.equal(text(answer.body), `hello ${coding}`);
      assert.equal(seen.at(-1)?.headers["accept-encoding"], "gzip, deflate, br");
    }
    const spaced = await safeFetch(`${server.url}/encoded?coding=gzip&as=%20GZip%20`, {
      ...local,
      decompress: true,
    });
    assert.equal(text(spaced.body), "hello gzip");
    const identity = await safeFetch(`${server.url}/encoded?coding=identity`, { ...local, decompress: true });
    assert.equal(text(identity.body), "plain identity");
  });

  it("leaves the body as it came without decompress, and does not ask for an encoding", async () => {
    const answer = await safeFetch(`${server.url}/encoded?coding=gzip`, local);
    assert.deepEqual(Buffer.from(answer.body), encoded.gzip);
    assert.equal(seen.at(-1)?.headers["accept-encoding"], undefined);
    const own = await safeFetch(`${server.url}/`, {
      ...local,
      decompress: true,
      headers: { "accept-encoding": "gzip" },
    });
    assert.equal(text(own.body), "hello");
    assert.equal(seen.at(-1)?.headers["accept-encoding"], "gzip", "the caller's own choice wins");
  });

  it("counts the limit on the decoded bytes: a small compressed body that inflates past it is refused", async () => {
    const error = await failure(safeFetch(`${server.url}/bomb`, { ...local, decompress: true }));
    assert.equal(error.kind, "too-large");
    const cut = await safeFetch(`${server.url}/bomb`, { ...local, decompress: true, overflow: "truncate" });
    assert.equal(cut.body.length, 1000);
    assert.equal(cut.truncated, true);
  });

  it("names an unknown coding and a corrupt compressed body undecodable", async () => {
    const unknown = await failure(
      safeFetch(`${server.url}/encoded?coding=zstd`, { ...local, decompress: true }),
    );
    assert.equal(unknown.kind, "undecodable");
    assert.match(unknown.message, /encoded as "zstd"/);
    const corrupt = await failure(safeFetch(`${server.url}/corrupt`, { ...local, decompress: true }));
    assert.equal(corrupt.kind, "undecodable");
    assert.match(corrupt.message, /corrupt/);
  });

  it("follows up to three redirects by default, recording each, and refuses a fourth", async () => {
    const answer = await safeFetch(`${server.url}/redirect?hops=2&code=301`, local);
    assert.equal(answer.url, `${server.url}/status?code=200`);
    assert.deepEqual(answer.redirects, [
      {
        url: `${server.url}/redirect?hops=2&code=301`,
        status: 301,
        location: `${server.url}/redirect?hops=1`,
      },
      { url: `${server.url}/redirect?hops=1`, status: 302, location: `${server.url}/redirect?hops=0` },
      { url: `${server.url}/redirect?hops=0`, status: 302, location: `${server.url}/status?code=200` },
    ]);
    const error = await failure(safeFetch(`${server.url}/redirect?hops=3`, local));
    assert.equal(error.kind, "too-many-redirects");
    assert.match(error.message, /more than 3 redirects/);
  });

  it("follows 303, 307 and 308 too, and as many redirects as maxRedirects says", async () => {
    for (const code of [303, 307, 308])
      assert.equal(
        (await safeFetch(`${server.url}/redirect?hops=0&code=${code}`, local)).status,
        200,
        String(code),
      );
    assert.equal(
      (await failure(safeFetch(`${server.url}/redirect?hops=0`, { ...local, maxRedirects: 0 }))).kind,
      "too-many-redirects",
    );
    assert.equal(
      (await safeFetch(`${server.url}/redirect?hops=4`, { ...local, maxRedirects: 5 })).status,
      200,
    );
  });

  it("hands a redirect back as it came when the caller follows redirects itself", async () => {
    const answer = await safeFetch(`${server.url}/redirect?hops=0&code=307`, {
      ...local,
      redirect: "manual",
    });
    assert.equal(answer.status, 307);
    assert.equal(answer.headers.get("location"), "/status?code=200");
    assert.deepEqual(answer.redirects, []);
  });

  it("sends a POST's body and never follows its redirect", async () => {
    const answer = await safeFetch(`${server.url}/status?code=202`, {
      ...local,
      method: "POST",
      body: "payload",
    });
    assert.equal(answer.status, 202);
    assert.equal(seen.at(-1)?.method, "POST");
    assert.equal(seen.at(-1)?.body, "payload");
    const error = await failure(
      safeFetch(`${server.url}/redirect?hops=0`, { ...local, method: "POST", body: "x", maxRedirects: 3 }),
    );
    assert.equal(error.kind, "too-many-redirects");
  });

  it("refuses what is not an absolute http(s) URL, given or redirected to", async () => {
    assert.equal((await failure(safeFetch("not a url", local))).kind, "invalid-url");
    const ftp = await failure(safeFetch("ftp://127.0.0.1/file", local));
    assert.equal(ftp.kind, "invalid-url");
    assert.match(ftp.message, /only http and https/);
    const toFile = await failure(
      safeFetch(`${server.url}/redirect-to?location=${encodeURIComponent("file:///etc/passwd")}`, local),
    );
    assert.equal(toFile.kind, "invalid-url");
    const broken = await failure(
      safeFetch(`${server.url}/redirect-to?location=${encodeURIComponent("http://[::1")}`, local),
    );
    assert.equal(broken.kind, "invalid-url");
    assert.match(broken.message, /redirects to an invalid URL/);
  });

  it("names a server that answers nothing in time a timeout, and one that is not there unreachable", async () => {
    const late = await failure(safeFetch(`${server.url}/hold`, { ...local, timeoutMs: 100 }));
    assert.equal(late.kind, "timeout");
    const spare = await listen(() => {});
    const closed = spare.url;
    await spare.close();
    const gone = await failure(safeFetch(`${closed}/`, local));
    assert.equal(gone.kind, "unreachable");
    assert.match(gone.message, /could not connect \(ECONNREFUSED\)/);
  });

  it("names an answer cut off midway unreachable", async () => {
    const cut = await failure(safeFetch(`${server.url}/break`, local));
    assert.equal(cut.kind, "unreachable");
    assert.match(cut.message, /broke off/);
  });

  it("throws the caller's own abort reason when the caller cancels", async () => {
    const controller = new AbortController();
    const reason = new Error("the target's own timeout");
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(
      safeFetch(`${server.url}/hold`, { ...local, signal: controller.signal }),
      (error) => error === reason,
    );
  });

  it("refuses a private address, literal or by name, unless it is under the user's own site", async () => {
    const port = new URL(server.url).port;
    const strict = { ...local, policy: { ownSite: `http://127.0.0.1:${port}/blog/` } };
    assert.equal((await safeFetch(`http://127.0.0.1:${port}/blog/photo.jpg`, strict)).status, 200);
    assert.equal((await safeFetch(`http://127.0.0.1:${port}/blog`, strict)).status, 200);
    for (const url of [
      `http://127.0.0.1:${port}/blogger`,
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/blog/x`,
    ]) {
      const error = await failure(safeFetch(url, strict));
      assert.equal(error.kind, "refused", url);
      assert.equal(error.message, `${url}: refused: private address`);
    }
  });
});

describe("which URLs lie under the user's own site", () => {
  it("the same origin and under its path, the path itself with or without its slash", () => {
    const own = "https://blog.example/me/";
    assert.equal(isUnderOwnSite(new URL("https://blog.example/me/post"), own), true);
    assert.equal(isUnderOwnSite(new URL("https://blog.example/me"), "https://blog.example/me"), true);
    assert.equal(isUnderOwnSite(new URL("https://blog.example/me/a"), "https://blog.example/me"), true);
    assert.equal(isUnderOwnSite(new URL("https://blog.example/anything"), "https://blog.example"), true);
    for (const url of [
      "https://blog.example/meme",
      "https://blog.example/",
      "http://blog.example/me/post",
      "https://other.example/me/post",
    ])
      assert.equal(isUnderOwnSite(new URL(url), own), false, url);
    assert.equal(isUnderOwnSite(new URL("https://blog.example/me/"), undefined), false);
    assert.equal(isUnderOwnSite(new URL("https://blog.example/me/"), "not a url"), false);
  });
});

describe("the lookup that hands a connection only public addresses", () => {
  // A resolver of the test's own: the process's dns.lookup stays untouched for the other files'
  // connections that share this test process.
  let addresses: LookupAddress[] = [];
  const resolve = ((_host: string, _options: unknown, callback: (e: null, a: LookupAddress[]) => void) =>
    callback(null, addresses)) as unknown as typeof dns.lookup;
  const answering = (answer: LookupAddress[]) => {
    addresses = answer;
  };
  const lookup = (all: boolean) =>
    new Promise<{ error: unknown; result: unknown; family?: number }>((done) =>
      publicOnlyLookupVia(resolve)("host.example", { all }, (error, result, family) =>
        done({ error, result, family }),
      ),
    );

  it("drops the private addresses of a name, answering all or the first public one as asked", async () => {
    answering([
      { address: "10.0.0.1", family: 4 },
      { address: "2606:4700::1111", family: 6 },
      { address: "93.184.216.34", family: 4 },
    ]);
    assert.deepEqual((await lookup(true)).result, [
      { address: "2606:4700::1111", family: 6 },
      { address: "93.184.216.34", family: 4 },
    ]);
    const one = await lookup(false);
    assert.equal(one.result, "2606:4700::1111");
    assert.equal(one.family, 6);
  });

  it("fails with the refusal when every address is private", async () => {
    answering([{ address: "127.0.0.1", family: 4 }]);
    const { error } = await lookup(true);
    assert.equal(isRefusedAddress(error), true);
    assert.equal(isRefusedAddress(new Error("other")), false);
  });
});
