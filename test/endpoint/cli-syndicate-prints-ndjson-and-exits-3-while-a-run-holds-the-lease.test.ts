// Decision 0007: `possekit syndicate [--url URL]` runs the same core from the command line (cron),
// printing a JSON line per post as it finishes and then a summary line, and exiting 0; while a
// batch lease is held by another process it exits 3 and sends nothing.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { builtInPlugins } from "../../src/built-in-plugins.ts";
import { loadConfig } from "../../src/server/config/load.ts";
import { Host } from "../../src/server/host.ts";
import { createLogger } from "../../src/server/logger.ts";
import { Lease } from "../../src/syndication/runs/lease.ts";
import { RunLog } from "../../src/syndication/runs/run-log.ts";
import type { PostResult, RunSummary } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import { TYPESCRIPT_HOOKS } from "../helpers/typescript.ts";
import { PLUGIN_PACKAGE, startTarget, type Target, texts } from "./endpoint-server.ts";

const BIN = resolve(fileURLToPath(import.meta.url), "../../../bin/possekit.js");

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function possekit(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...TYPESCRIPT_HOOKS, BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", POSSEKIT_SOURCE: "1", ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === "number" ? error.code : error ? -1 : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

type Line = ({ type: "result" } & PostResult) | { type: "summary"; summary: RunSummary };

const lines = (stdout: string): Line[] =>
  stdout
    .trimEnd()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);

for (const engine of engines) {
  describe(`possekit syndicate (${engine.name})`, () => {
    let target: Target | undefined;
    let dir = "";
    let configPath = "";
    let dropDatabase = async () => {};
    const env = { SECRET: "a-secret-of-the-cli-test-0123456789", PASSWORD: "cli-test-password" };
    const posts: string[] = [];

    /** The host of the config file, prepared (database migrated) but not listening. */
    const prepareHost = async () => {
      const host = new Host(loadConfig({ configPath, env, cwd: dir }), {
        logger: createLogger("silent"),
        builtInPlugins,
      });
      await host.prepare();
      assert.ok(host.posts);
      return host;
    };
    const seed = async (host: Host, content: string, published: string) => {
      assert.ok(host.posts && target);
      const post = await host.posts.create({
        properties: { type: "entry", content, published, "mp-syndicate-to": [target.uid] },
      });
      posts.push(post.url);
      return post.url;
    };

    before(async () => {
      target = await startTarget();
      dir = mkdtempSync(join(tmpdir(), "possekit-cli-"));
      let database = join(dir, "db");
      if (engine.name === "postgres") {
        const location = await engine.location();
        database = location.url;
        dropDatabase = location.drop;
      }
      configPath = join(dir, "possekit.config.json");
      writeFileSync(
        configPath,
        JSON.stringify({
          application: { database, dataDir: "data" },
          publication: { me: "https://blog.example.org" },
          plugins: [PLUGIN_PACKAGE, "@possekit/syndicator-mastodon"],
          "@possekit/syndicator-mastodon": {
            url: target.sandbox.url,
            user: target.sandbox.user,
            accessToken: target.sandbox.accessToken,
          },
        }),
      );
      const host = await prepareHost();
      try {
        await seed(host, "first", "2024-01-01T00:00:00Z");
        await seed(host, "second", "2024-01-02T00:00:00Z");
        await seed(host, "by url", "2024-01-03T00:00:00Z");
      } finally {
        await host.stop();
      }
    });
    after(async () => {
      await target?.sandbox.close();
      await dropDatabase();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const [what, value] of [
      ["an empty --url (an unset variable in a crontab)", ""],
      ["a --url that is not absolute", "/notes/by-url/"],
    ] as const) {
      it(`exits 1 on ${what}, sending nothing`, async () => {
        assert.ok(target);
        const run = await possekit(["syndicate", "--config", configPath, "--url", value], env);
        assert.equal(run.code, 1, run.stdout);
        assert.equal(run.stdout, "");
        assert.match(run.stderr, /--url must be an absolute http\(s\) URL/);
        assert.equal(target.sandbox.requests.length, 0);
      });
    }

    it("syndicates the one post given with --url and exits 0", async () => {
      assert.ok(target);
      const run = await possekit(["syndicate", "--config", configPath, "--url", posts[2] ?? ""], env);
      assert.equal(run.code, 0, run.stderr);
      const printed = lines(run.stdout);
      assert.deepEqual(
        printed.map((line) => line.type),
        ["result", "summary"],
      );
      const [result, summary] = printed;
      assert.equal(result?.type === "result" && result.url, posts[2]);
      assert.equal(result?.type === "result" && result.status, "syndicated");
      assert.deepEqual(summary?.type === "summary" && summary.summary, {
        posts: 1,
        syndicated: 1,
        partial: 0,
        failed: 0,
        skipped: 0,
      });
      assert.deepEqual(texts(target), ["by url"]);
    });

    it("works through every awaiting post, oldest first, printing NDJSON, and exits 0", async () => {
      assert.ok(target);
      const run = await possekit(["syndicate", "--config", configPath], env);
      assert.equal(run.code, 0, run.stderr);
      const printed = lines(run.stdout);
      assert.deepEqual(
        printed.map((line) => (line.type === "result" ? [line.url, line.status] : line.summary)),
        [
          [posts[0], "syndicated"],
          [posts[1], "syndicated"],
          { posts: 2, syndicated: 2, partial: 0, failed: 0, skipped: 0 },
        ],
      );
      assert.deepEqual(texts(target), ["by url", "first", "second"]);
    });

    it("exits 3 and sends nothing while another process holds the batch lease", async () => {
      assert.ok(target);
      const host = await prepareHost();
      try {
        assert.ok(host.database);
        await seed(host, "waiting", "2024-01-04T00:00:00Z");
        // Another instance took the lease and has not finished (it renews it for a minute yet).
        const database = host.database;
        const held = await new Lease(database, host.logger, 60_000).acquire(
          "another-instance",
          "webhook",
          (tx) => new RunLog(database).start("batch", "webhook", "another-instance", tx),
        );
        assert.ok(held, "the lease was free");
      } finally {
        await host.stop();
      }
      const run = await possekit(["syndicate", "--config", configPath], env);
      assert.equal(run.code, 3, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /Syndication is already in progress \(started by webhook at /);
      assert.deepEqual(texts(target), ["by url", "first", "second"]);
    });
  });
}
