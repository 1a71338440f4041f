import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import {
  BodyAlreadyReadError,
  RequestAbortedError,
  readRawBody,
} from "../../src/plugin/webhooks/raw-body.ts";
import { deferred, send, startServer, type TestServer } from "./raw-body-server.ts";

describe("a raw body is read once, and a hang-up is an error", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it("rejects with RequestAbortedError when the client hangs up mid-body", { timeout: 20_000 }, async () => {
    const arrived = deferred<void>();
    const outcome = deferred<unknown>();
    server.handle((req) => {
      readRawBody(req, { limit: 10_000 }).then(outcome.resolve, outcome.resolve);
      arrived.resolve();
    });

    const client = request(server.url, {
      method: "POST",
      headers: { "content-length": "1000" },
      agent: false,
    });
    client.on("error", () => {});
    client.write("only the start of the body");
    await arrived.promise;
    client.destroy();

    const error = await outcome.promise;
    assert.ok(error instanceof RequestAbortedError, `expected RequestAbortedError, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(error.error, "invalid_request");
    assert.equal(error.message, "The request was aborted before its whole body arrived.");
  });

  it("refuses a second read of the same request, during or after the first", async () => {
    server.handle((req, res) => {
      const first = readRawBody(req);
      const during = readRawBody(req).then(
        () => "read",
        (error: unknown) => (error instanceof BodyAlreadyReadError ? "refused" : String(error)),
      );
      Promise.all([first, during]).then(async ([body, second]) => {
        const afterwards = await readRawBody(req).then(
          () => "read",
          (error: unknown) => (error instanceof BodyAlreadyReadError ? "refused" : String(error)),
        );
        res.end(JSON.stringify({ first: body.toString(), second, afterwards }));
      });
    });
    const answer = await send(server.url, { chunks: [Buffer.from('{"state":"ready"}')] });
    assert.deepEqual(JSON.parse(answer.body), {
      first: '{"state":"ready"}',
      second: "refused",
      afterwards: "refused",
    });
  });

  it("refuses a body some other reader (a body parser) consumed first, with a 500 that says how to fix it", async () => {
    const outcome = deferred<unknown>();
    server.handle(async (req, res) => {
      for await (const _chunk of req) {
        // Drain, as a body parser would.
      }
      await readRawBody(req).then(outcome.resolve, outcome.resolve);
      res.end();
    });
    await send(server.url, { chunks: [Buffer.from("{}")] });
    const error = await outcome.promise;
    assert.ok(error instanceof BodyAlreadyReadError);
    assert.equal(error.status, 500);
    assert.match(error.message, /Mount the webhook routes before any body parser/);
  });

  it("refuses a negative limit, and takes a limit of 0 for an empty body", async () => {
    const outcomes: unknown[] = [];
    server.handle(async (req, res) => {
      const limit = Number(req.headers["x-limit"]);
      await readRawBody(req, { limit }).then(
        (body) => outcomes.push(body.length),
        (error: unknown) => outcomes.push(error),
      );
      res.end();
    });
    await send(server.url, { headers: { "x-limit": "-1" } });
    await send(server.url, { headers: { "x-limit": "0" } });
    const [negative, zero] = outcomes;
    assert.ok(negative instanceof TypeError, String(negative));
    assert.equal(negative.message, "readRawBody: limit must be a whole number of bytes, 0 or more (got -1).");
    assert.equal(zero, 0);
  });

  it("refuses a limit that is not a whole number of bytes", async () => {
    const outcome = deferred<unknown>();
    server.handle(async (req, res) => {
      await readRawBody(req, { limit: 1.5 }).then(() => outcome.resolve("accepted"), outcome.resolve);
      res.end();
    });
    await send(server.url);
    const error = await outcome.promise;
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /limit must be a whole number of bytes/);
  });
});
