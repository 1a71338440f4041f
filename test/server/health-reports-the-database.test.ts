// GET /health (decision 0001): 200 with the database's state, without authentication; the engine (and
// the plug-ins' reports) only to the owner or a token's holder
// (test/server/health-tells-a-stranger-only-the-overall-state.test.ts).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { engines, pgliteEngine } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { configFolder, type StartedHost, startHostFrom } from "./start-host.ts";

for (const engine of engines) {
  describe(`GET /health on ${engine.name}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ engine, config: { plugins: [] } });
    });
    after(() => server.close());

    it("answers 200 with the database's state, and its engine to a token's holder", async () => {
      const response = await fetch(`${server.url}/health`);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { status: "ok", database: "ok" });
      const insider = await fetch(`${server.url}/health`, {
        headers: { authorization: `Bearer ${await server.token()}` },
      });
      assert.deepEqual(await insider.json(), { status: "ok", database: "ok", engine: engine.name });
    });
  });
}

describe("GET /health without a database", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
  });
  after(() => server.close());

  it("answers 200 and says there is no database", async () => {
    const response = await fetch(`${server.url}/health`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: "ok", database: "none" });
  });
});

describe("GET /health when the database stops answering", () => {
  const folder = configFolder(() => ({ application: { port: 0 }, plugins: [] }));
  let database: Database;
  let started: StartedHost;
  before(async () => {
    database = await pgliteEngine.open();
    started = await startHostFrom(folder, { database });
  });
  after(async () => {
    await started.close();
    folder.remove();
  });

  it("answers 503 unavailable", async () => {
    await database.close();
    const response = await fetch(`${started.url}/health`);
    assert.equal(response.status, 503);
    assert.deepEqual(await response.json(), { status: "unavailable", database: "unavailable" });
  });
});
