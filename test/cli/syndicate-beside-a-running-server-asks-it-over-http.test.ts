// Decision 0016: no second process opens an embedded (PGlite) folder another holds. With the
// server running on ./data, `possekit syndicate` asks it over HTTP (POST {mountPath}, NDJSON, a
// token signed with SECRET) and prints the same lines and exit code, while the server keeps
// answering /health; `possekit migrate` beside it exits 1 with one line naming the server's pid.
// The lock is gone once the server has stopped.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ChildServer, SHARED_ME, startChildServer } from "../helpers/child-server.ts";
import {
  ENDPOINT_PACKAGE,
  MASTODON_PACKAGE,
  type Sandbox,
  startSandbox,
  statusesByText,
} from "../scale/cluster.ts";
import { runCli } from "./run-cli.ts";

describe("possekit syndicate beside a server on the same embedded folder", () => {
  let folder = "";
  let sandbox: Sandbox | undefined;
  let server: ChildServer | undefined;
  const secret = randomBytes(24).toString("base64url");
  let env: Record<string, string> = {};
  let configPath = "";

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "possekit-held-"));
    sandbox = await startSandbox();
    env = { SECRET: secret, MASTODON_ACCESS_TOKEN: sandbox.mastodon.accessToken };
    const config = {
      application: { dataDir: join(folder, "data") },
      publication: { me: SHARED_ME },
      plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
      // Trigger-only: whatever is sent here is sent by the command.
      [ENDPOINT_PACKAGE]: { schedule: { enabled: false } },
      [MASTODON_PACKAGE]: { url: sandbox.mastodon.url, user: sandbox.mastodon.user },
    };
    configPath = join(folder, "possekit.config.json");
    writeFileSync(configPath, JSON.stringify(config));
    server = await startChildServer({ config, env, secret });
  });

  after(async () => {
    await server?.stop();
    await sandbox?.mastodon.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("prints the server's results and exits 0, the server answering /health throughout", async (t) => {
    const running = server as ChildServer;
    const mastodon = sandbox as Sandbox;
    const token = await running.token("create update");
    for (let i = 1; i <= 3; i += 1) {
      const form = new URLSearchParams({ h: "entry", content: `Held ${i}` });
      form.append("mp-syndicate-to[]", mastodon.uid);
      const created = await fetch(`${running.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
        body: form,
      });
      assert.equal(created.status, 201);
    }

    let slowest = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const started = Date.now();
        // A hang guard, not a time budget: how fast it answers is the bench's figure, not a test's.
        const health = await fetch(`${running.url}/health`, { signal: AbortSignal.timeout(60_000) });
        assert.equal(health.status, 200);
        await health.body?.cancel();
        slowest = Math.max(slowest, Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const syndicated = await runCli(["syndicate", "--config", configPath], { cwd: folder, env });
    polling = false;
    await poll;

    assert.equal(syndicated.code, 0, syndicated.stderr);
    const lines = syndicated.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((line) => [line.type, line.status ?? null]),
      [
        ["result", "syndicated"],
        ["result", "syndicated"],
        ["result", "syndicated"],
        ["summary", null],
      ],
    );
    assert.deepEqual(lines.at(-1)?.summary, { posts: 3, syndicated: 3, partial: 0, failed: 0, skipped: 0 });
    // Under load the slowest answer took over the second this test once demanded, with no fault in
    // the code (decision 0053): the figure is printed, and /health's latency under load is measured by
    // the bench (npm run bench -- --only lock-contention).
    t.diagnostic(`/health answered within ${slowest} ms at worst while the command ran`);
    for (let i = 1; i <= 3; i += 1) assert.equal(statusesByText(mastodon).get(`Held ${i}`), 1);

    const again = await runCli(["syndicate", "--config", configPath], { cwd: folder, env });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(mastodon.mastodon.statuses.length, 3, "nothing is sent twice");
  });

  it("refuses to migrate beside the server, in one line naming its pid", async () => {
    const running = server as ChildServer;
    const migrated = await runCli(["migrate", "--config", configPath], { cwd: folder, env });
    assert.equal(migrated.code, 1);
    const lines = migrated.stderr.trim().split("\n");
    assert.equal(lines.length, 1, migrated.stderr);
    assert.match(lines[0] ?? "", new RegExp(`held by the server \\(pid ${running.pid}, http://`));
  });

  it("removes its lock when it stops, and the folder opens again", async () => {
    await server?.stop();
    assert.equal(existsSync(join(folder, "data", "db.lock")), false);
    const migrated = await runCli(["migrate", "--config", configPath], { cwd: folder, env });
    assert.equal(migrated.code, 0, migrated.stderr);
  });
});
