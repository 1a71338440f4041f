// A backup taken with `possekit backup` while the server is in the middle of a batch (the third
// post created on the sandbox Mastodon, its answer held back), then the disaster: the server is
// killed and its folder lost. `possekit restore` into a fresh folder, a new server on it: the
// interrupted send is resolved at start as a crashed process's is (resent with the same
// Idempotency-Key, which Mastodon answers with the status it made), the batch's remaining posts
// are sent once each, every copy is recorded once, a second run sends nothing, and the keys of the
// data folder come back as they were.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../cli/run-cli.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import {
  createPosts,
  ENDPOINT_PACKAGE,
  MASTODON_PACKAGE,
  type Sandbox,
  startSandbox,
  statusesByText,
  statusPostsByKey,
  until,
} from "../scale/cluster.ts";

const POSTS = 6;
/** The post in flight when the backup is taken (1-based). */
const INTERRUPTED = 3;

describe("a backup taken mid-batch, restored into a fresh folder", () => {
  let sandbox: Sandbox | undefined;
  const servers: ChildServer[] = [];
  const folder = mkdtempSync(join(tmpdir(), "possekit-backup-"));
  const original = join(folder, "original");
  const restored = join(folder, "restored");
  const secret = randomBytes(24).toString("base64url");
  const password = randomBytes(9).toString("base64url");
  // A stand-in for the account secrets' key: whatever KEY_FILES names comes back byte for byte.
  const accountsKey = randomBytes(32).toString("base64url");
  let config: (dataDir: string) => Record<string, unknown> = () => ({});
  let env: Record<string, string> = {};

  before(async () => {
    sandbox = await startSandbox({ latencyMs: 50 });
    env = { MASTODON_ACCESS_TOKEN: sandbox.mastodon.accessToken };
    const mastodon = sandbox.mastodon;
    config = (dataDir) => ({
      application: { dataDir },
      plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
      [ENDPOINT_PACKAGE]: { targetTimeoutMs: 120_000 },
      [MASTODON_PACKAGE]: { url: mastodon.url, user: mastodon.user },
    });
    mkdirSync(original, { mode: 0o700 });
    writeFileSync(join(original, "account-secrets-key"), `${accountsKey}\n`, { mode: 0o600 });
    for (const dataDir of [original, restored])
      writeFileSync(
        join(folder, `${dataDir === original ? "original" : "restored"}.json`),
        JSON.stringify({ application: { dataDir } }),
      );
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await sandbox?.mastodon.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("sends nothing twice, loses no post and brings the keys back", async () => {
    const mastodon = sandbox as Sandbox;
    const doomed = await startChildServer({ config: config(original), env, secret, password });
    servers.push(doomed);
    const token = await doomed.token("create update");
    const posts = await createPosts(doomed, token, POSTS, [mastodon.uid], "Backup");

    // The third status is made on Mastodon, but its answer never comes back.
    mastodon.mastodon.setBehaviour({
      hangMs: Number.POSITIVE_INFINITY,
      hangPhase: "after",
      skip: INTERRUPTED - 1,
      times: 1,
    });
    const batch = fetch(`${doomed.url}/syndicate`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/x-ndjson" },
    }).then(
      (response) => response.body?.cancel(),
      () => {},
    );
    await until(
      "the third status exists on Mastodon, unanswered",
      () => mastodon.mastodon.statuses.length >= INTERRUPTED,
    );

    const backup = join(folder, "mid-batch.tar.gz");
    const taken = await runCli(["backup", backup, "--config", join(folder, "original.json")], {
      cwd: folder,
    });
    assert.equal(taken.code, 0, taken.stderr);
    assert.match(
      taken.stdout,
      /Backup written to .*mid-batch\.tar\.gz \(the database, 1 key file: account-secrets-key/,
    );
    assert.equal(statSync(backup).mode & 0o777, 0o600, "the backup holds the keys: the owner's alone");
    assert.equal(existsSync(join(original, "password")), false, "the backup made no secret of its own");

    // The disaster: the server dies mid-send and its folder is gone.
    assert.equal((await doomed.kill("SIGKILL")).signal, "SIGKILL");
    await batch;
    mastodon.mastodon.clearBehaviour();
    assert.equal(mastodon.mastodon.statuses.length, INTERRUPTED, "the batch stopped at the third post");
    rmSync(original, { recursive: true, force: true });

    const restoring = await runCli(["restore", backup, "--config", join(folder, "restored.json")], {
      cwd: folder,
    });
    assert.equal(restoring.code, 0, restoring.stderr);
    assert.equal(
      readFileSync(join(restored, "account-secrets-key"), "utf8"),
      `${accountsKey}\n`,
      "the accounts' key came back",
    );
    assert.equal(statSync(join(restored, "account-secrets-key")).mode & 0o777, 0o600);
    assert.equal(statSync(restored).mode & 0o777, 0o700);

    const again = await startChildServer({ config: config(restored), env, secret, password });
    servers.push(again);
    const explain = (what: string) =>
      `${what}; Mastodon has ${mastodon.mastodon.statuses.length}.\nThe restored server wrote:\n${again.output()}`;
    const resolvedAtStart =
      /Resolved sends interrupted when the server last stopped \{"resend":1,"unknown":0\}/;
    // Logged by a start handler, which may finish just after the server first answers.
    await until("the restored server logs what it resolved at start", () =>
      resolvedAtStart.test(again.output()),
    ).catch(() => {});
    assert.match(
      again.output(),
      resolvedAtStart,
      explain("the restored server resolved the interrupted send at start"),
    );
    const token2 = await again.token("create update");
    const run = async () => {
      const response = await fetch(`${again.url}/syndicate`, {
        method: "POST",
        headers: { authorization: `Bearer ${token2}`, accept: "application/json" },
      }).catch((error: Error) => {
        throw new Error(
          explain(`POST /syndicate: ${error.message} (${String(error.cause)}); alive ${again.alive()}`),
        );
      });
      assert.equal(response.status, 200, explain(await response.clone().text()));
      return (await response.json()) as { summary: { syndicated: number } };
    };
    await run();
    for (let i = 1; i <= POSTS; i += 1)
      assert.equal(
        statusesByText(mastodon).get(`Backup ${i} of ${POSTS}`),
        1,
        explain(`Backup ${i} on Mastodon once`),
      );
    const interrupted = mastodon.mastodon.statuses[INTERRUPTED - 1];
    assert.equal(
      statusPostsByKey(mastodon).get(interrupted?.idempotencyKey as string),
      2,
      "the interrupted status was asked for again with its key, and Mastodon kept one",
    );

    // A second run sends nothing at all.
    const requestsBefore = mastodon.mastodon.requests.filter((r) => r.method === "POST").length;
    const second = await run();
    assert.equal(second.summary.syndicated, 0, JSON.stringify(second));
    assert.equal(mastodon.mastodon.requests.filter((r) => r.method === "POST").length, requestsBefore);
    assert.equal(mastodon.mastodon.statuses.length, POSTS);

    // Every copy recorded once, on the post, by the restored server.
    for (const [index, url] of posts.entries()) {
      const response = await fetch(`${again.url}/micropub?q=source&url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${token2}`, accept: "application/json" },
      });
      const { properties } = (await response.json()) as { properties: Record<string, unknown[]> };
      const status = mastodon.mastodon.statuses.find((s) => s.text === `Backup ${index + 1} of ${POSTS}`);
      assert.deepEqual(properties.syndication, [status?.url], `${url} names its one copy`);
    }
  });
});
