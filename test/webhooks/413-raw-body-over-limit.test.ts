import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before, describe, it } from "node:test";
import { DEFAULT_MAX_BODY_BYTES, RawBodyError, readRawBody } from "../../src/plugin/webhooks/raw-body.ts";
import { send, startServer, type TestServer } from "./raw-body-server.ts";

// Answers what it read (length and digest), or the error's status, code and headers.
function readingWith(limit?: number) {
  return (req: IncomingMessage, res: ServerResponse) => {
    readRawBody(req, limit === undefined ? {} : { limit }).then(
      (body) => {
        const digest = createHash("sha256").update(body).digest("hex");
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ length: body.length, digest }));
      },
      (error: unknown) => {
        if (!(error instanceof RawBodyError)) throw error;
        res.writeHead(error.status, error.headers).end(error.error);
      },
    );
  };
}

const digestOf = (...chunks: Buffer[]) => createHash("sha256").update(Buffer.concat(chunks)).digest("hex");

describe("reading a webhook body raw, within a byte limit", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it("returns the exact bytes sent, binary included", async () => {
    server.handle(readingWith(1000));
    const body = randomBytes(700);
    const answer = await send(server.url, { chunks: [body] });
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { length: 700, digest: digestOf(body) });
  });

  it("returns an empty buffer for an empty body", async () => {
    server.handle(readingWith(1000));
    const answer = await send(server.url, { headers: { "content-length": "0" } });
    assert.deepEqual(JSON.parse(answer.body), { length: 0, digest: digestOf() });
  });

  it("accepts a body of exactly the limit, chunked or with Content-Length", async () => {
    server.handle(readingWith(100));
    const body = randomBytes(100);
    const chunked = await send(server.url, { chunks: [body.subarray(0, 60), body.subarray(60)] });
    assert.equal(chunked.status, 200);
    assert.equal(JSON.parse(chunked.body).digest, digestOf(body));
    const declared = await send(server.url, { headers: { "content-length": "100" }, chunks: [body] });
    assert.equal(declared.status, 200);
  });

  // Were the limit checked only at the end of the body, these two would never be answered: the timeout
  // turns that into a failure.
  it("answers 413 from Content-Length alone, before the body is sent, and closes the connection", {
    timeout: 20_000,
  }, async () => {
    server.handle(readingWith(100));
    const answer = await send(server.url, {
      headers: { "content-length": "1000000" },
      chunks: [Buffer.from("{")],
      end: false,
    });
    assert.equal(answer.status, 413);
    assert.equal(answer.body, "payload_too_large");
    assert.equal(answer.headers.connection, "close");
  });

  it("answers 413 when a body without Content-Length grows past the limit, before its end", {
    timeout: 20_000,
  }, async () => {
    server.handle(readingWith(100_000));
    const chunk = randomBytes(40_000);
    const answer = await send(server.url, {
      headers: { "transfer-encoding": "chunked" },
      chunks: [chunk, chunk, chunk],
      end: false,
    });
    assert.equal(answer.status, 413);
  });

  it("answers 413 for one byte over the limit", async () => {
    server.handle(readingWith(100));
    const answer = await send(server.url, { chunks: [randomBytes(50), randomBytes(51)] });
    assert.equal(answer.status, 413);
  });

  it("says the limit in its refusal, which closes the connection", async () => {
    let refusal: unknown;
    server.handle(async (req, res) => {
      await readRawBody(req, { limit: 10 }).catch((error: unknown) => {
        refusal = error;
      });
      res.end();
    });
    await send(server.url, { chunks: [randomBytes(11)] });
    assert.ok(refusal instanceof RawBodyError);
    assert.deepEqual(
      { status: refusal.status, error: refusal.error, message: refusal.message, headers: refusal.headers },
      {
        status: 413,
        error: "payload_too_large",
        message: "The request body is larger than the limit of 10 bytes. Send a smaller body.",
        headers: { Connection: "close" },
      },
    );
  });

  it("limits to 100 kB when no limit is given", async () => {
    assert.equal(DEFAULT_MAX_BODY_BYTES, 100_000);
    server.handle(readingWith());
    const within = await send(server.url, { chunks: [randomBytes(100_000)] });
    assert.equal(within.status, 200);
    const over = await send(server.url, { chunks: [randomBytes(100_001)] });
    assert.equal(over.status, 413);
  });
});
