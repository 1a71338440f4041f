// SIGTERM (decision 0001): `possekit serve` stops taking new connections, lets the request in flight
// finish, closes the database and exits 0.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { configFolder, pathFrom, TEST_PLUGIN_FILE } from "../server/start-host.ts";
import { serve } from "./run-cli.ts";

describe("possekit serve on SIGTERM", () => {
  // The embedded database in the config's folder, so that shutdown has a database to close.
  const folder = configFolder((dir) => ({
    application: { port: 0 },
    plugins: [pathFrom(dir, TEST_PLUGIN_FILE)],
  }));
  after(() => folder.remove());

  it("answers the request in flight before exiting 0", async () => {
    const server = await serve([], { cwd: folder.dir, env: folder.env });
    try {
      // The test plug-in's /slow answers only after the process has received SIGTERM.
      const inFlight = fetch(`${server.url}/test-mount/slow`);
      await server.printed(/slow request received/);
      server.child.kill("SIGTERM");
      const response = await inFlight;
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "finished");
      const { code, stderr } = await server.exited;
      assert.equal(code, 0, stderr);
      assert.match(stderr, /Stopping: letting requests finish/);
      await assert.rejects(fetch(`${server.url}/health`), "no new connection is taken after the exit");
    } finally {
      await server.stop();
    }
  });
});
