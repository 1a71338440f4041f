// Plug-in contract (decision 0001): plug-ins named by path in the config file's "plugins" list are
// constructed with their options entry, and init() receives the server: its configuration, the
// publication, the database (or null), the post source (or null), a logger and the syndication targets.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import type TestPlugin from "../fixtures/test-plugin/index.ts";
import { engines } from "../helpers/databases.ts";
import {
  configFolder,
  memoryLogger,
  pathFrom,
  type StartedHost,
  startHostFrom,
  TEST_PLUGIN_FILE,
  TEST_SYNDICATOR_FILE,
} from "./start-host.ts";

function configWith(database: false | undefined) {
  return configFolder((dir) => {
    const plugin = pathFrom(dir, TEST_PLUGIN_FILE);
    const syndicator = pathFrom(dir, TEST_SYNDICATOR_FILE);
    return {
      application: { name: "Init test", port: 0, ...(database === false ? { database: false } : {}) },
      publication: { me: "https://blog.example", timezone: "Europe/Berlin" },
      plugins: [plugin, syndicator],
      [plugin]: { mountPath: "/from-config", label: "options entry of the plug-in" },
      [syndicator]: { uid: "https://social.example/@configured", name: "Configured target" },
    };
  });
}

function installed(started: StartedHost): TestPlugin {
  const plugin = started.host.plugins.find((candidate) => candidate.id === "test-plugin");
  assert.ok(plugin, "the test plug-in is installed");
  return plugin as TestPlugin;
}

for (const engine of engines) {
  describe(`a plug-in loaded by path from the config file, on ${engine.name}`, () => {
    const folder = configWith(undefined);
    const logger = memoryLogger();
    let database: Database;
    let started: StartedHost;
    before(async () => {
      database = await engine.open();
      started = await startHostFrom(folder, { database, logger });
    });
    after(async () => {
      await started.close();
      await database.close();
      folder.remove();
    });

    it("is constructed with the options entry keyed by its name in the plugins list", async () => {
      const response = await fetch(`${started.url}/from-config/options`);
      assert.equal(response.status, 200);
      const options = await response.json();
      assert.equal(options.mountPath, "/from-config");
      assert.equal(options.label, "options entry of the plug-in");
    });

    it("receives the server's configuration and publication in init()", () => {
      const { server } = installed(started).received ?? assert.fail("init was not called");
      assert.equal(server.config.application.name, "Init test");
      assert.equal(server.config.application.production, false);
      assert.equal(server.publication.me, "https://blog.example/");
      assert.equal(server.publication.timezone, "Europe/Berlin");
      assert.equal(
        server.pluginOptions(pathFrom(folder.dir, TEST_PLUGIN_FILE)).label,
        "options entry of the plug-in",
      );
    });

    it("receives the database, and can query it", async () => {
      const received = installed(started).received ?? assert.fail("init was not called");
      assert.equal(received.database, database);
      const { rows } = await database.query<{ id: string }>("SELECT id FROM schema_migrations ORDER BY id");
      assert.ok(rows.some((row) => row.id === "test-plugin/001-notes"));
    });

    it("reads posts through the post-source port, which neither creates nor deletes posts", async () => {
      const { server } = installed(started).received ?? assert.fail("init was not called");
      const source = server.postSource ?? assert.fail("a server with a database has a post source");
      assert.equal(await source.findByUrl("https://blog.example/nothing-here/"), null);
      assert.deepEqual(await source.countAwaitingSyndication(), 0);
      for (const method of ["create", "delete", "undelete", "categories"])
        assert.equal(method in source, false, `the post source has no ${method}()`);
    });

    it("receives a logger that writes where the host logs", () => {
      const { server } = installed(started).received ?? assert.fail("init was not called");
      server.logger.warn("a line from the plug-in", { count: 1 });
      assert.ok(logger.lines.some((line) => line.includes("WARN a line from the plug-in")));
    });

    it("sees the syndication targets other plug-ins registered", () => {
      const { server } = installed(started).received ?? assert.fail("init was not called");
      assert.deepEqual(
        server.syndicators.map((target) => target.info),
        [{ uid: "https://social.example/@configured", name: "Configured target" }],
      );
    });
  });
}

describe("a plug-in's init() when the server runs without a database", () => {
  const folder = configWith(false);
  let started: StartedHost;
  before(async () => {
    started = await startHostFrom(folder);
  });
  after(async () => {
    await started.close();
    folder.remove();
  });

  it("receives null for the database and the post source", () => {
    const { server, database } = installed(started).received ?? assert.fail("init was not called");
    assert.equal(database, null);
    assert.equal(server.postSource, null);
  });
});
