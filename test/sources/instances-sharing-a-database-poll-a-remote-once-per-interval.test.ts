// Instances of one server share a database: each runs the same source, and the remote is polled
// once per interval between them (the turn is taken in the database), not once per instance.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { migrate } from "../../src/server/database/migrate.ts";
import type { MicropubSource } from "../../src/sources/micropub/micropub-source.ts";
import { micropubSourceMigrations } from "../../src/sources/micropub/migrations.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type Remote, remoteSourceOn, startRemote } from "./remote-micropub.ts";

const POLL_SECONDS = 60;

for (const engine of engines) {
  describe(`two instances of a remote source on one database (${engine.name})`, () => {
    let remote: Remote;
    let local: TestServer;
    const clock = new TestClock();
    let instances: MicropubSource[] = [];
    before(async () => {
      remote = await startRemote();
      await remote.create("One post", []);
      local = await startTestServer({ engine, config: { plugins: [] } });
      if (!local.host.database) throw new Error("The host has no database");
      await migrate(local.host.database, micropubSourceMigrations);
      instances = [1, 2].map(() =>
        remoteSourceOn(local, remote, { name: "shared", pollSeconds: POLL_SECONDS, now: clock.now }),
      );
    });
    after(async () => {
      await local?.close();
      await remote?.close();
    });

    const listings = () => remote.gate.passed.filter((request) => request === "GET q=source").length;

    it("one listing per interval, whichever instance takes the turn", async () => {
      await Promise.all(instances.map((instance) => instance.pollIfDue()));
      assert.equal(listings(), 1);
      await Promise.all(instances.map((instance) => instance.pollIfDue()));
      assert.equal(listings(), 1, "not again before the interval");
      clock.advance(POLL_SECONDS * 1000);
      await Promise.all(instances.map((instance) => instance.pollIfDue()));
      await Promise.all(instances.map((instance) => instance.pollIfDue()));
      assert.equal(listings(), 2);
      assert.equal((await local.host.knownPosts?.listByOrigin("micropub:shared"))?.length, 1);
    });
  });
}
