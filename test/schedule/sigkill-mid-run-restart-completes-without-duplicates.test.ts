// Decision 0013: a server killed with SIGKILL in the middle of a scheduled run — mid-send: both targets
// have created the fourth post but their answers never arrived — is restarted, and with no
// request at all the restarted server completes the run's remaining posts and resolves the
// interrupted sends: Mastodon, which honours the Idempotency-Key, gets the post again with the
// same key (and keeps one status); the Micropub site, which knows no key, is marked unknown and
// never sent it again. No post appears twice anywhere. On the embedded database the restart
// resolves what it finds at once; on PostgreSQL once the dead claims are stale.
//
// Where the run is interrupted is fixed by the targets (each holds back its fourth answer), not by
// when this process gets to look: the doomed server's scheduler starts sending while the posts are
// still being created, and on a loaded machine it is past the fourth post before the test looks.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { engines } from "../helpers/databases.ts";
import {
  createPosts,
  ENDPOINT_PACKAGE,
  MASTODON_PACKAGE,
  type Sandbox,
  settled,
  startSandbox,
  statusesByText,
  statusPostsByKey,
  until,
} from "../scale/cluster.ts";
import { type HangingMicropubTarget, startHangingMicropubTarget } from "../scale/hanging-micropub-target.ts";

const MICROPUB_PACKAGE = "@possekit/syndicator-micropub";
const LEASE_MS = 1_000;
/**
 * Long enough that the hanging sends are still in flight when the kill lands on a busy machine.
 * On the embedded database it also sets when the dead sends would look stale (lease + timeout):
 * well past the 45 s the restart is given, so a restart that waited for staleness fails even when
 * starting the second process is slow. On PostgreSQL the restart must wait for it, so it is short.
 */
const targetTimeoutMs = (engine: string) => (engine === "pglite" ? 60_000 : 8_000);
const POSTS = 8;
/** The post in flight when the process dies (1-based). */
const INTERRUPTED = 4;

for (const engine of engines) {
  describe(`SIGKILL during a scheduled run, then a restart (${engine.name})`, () => {
    let sandbox: Sandbox | undefined;
    let site: HangingMicropubTarget | undefined;
    const servers: ChildServer[] = [];
    let dataDir = "";
    let drop = async () => {};
    const secret = randomBytes(24).toString("base64url");
    const password = randomBytes(9).toString("base64url");
    let env: Record<string, string> = {};
    let config: Record<string, unknown> = {};
    const TARGET_TIMEOUT_MS = targetTimeoutMs(engine.name);

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "possekit-restart-"));
      if (engine.name === "postgres") {
        const location = await engine.location();
        drop = location.drop;
        env = { DATABASE_URL: location.url };
      }
      // 100 ms per status: the run lasts long enough for the kill to land mid-run.
      sandbox = await startSandbox({ latencyMs: 100 });
      site = await startHangingMicropubTarget(randomBytes(12).toString("hex"));
      env = {
        ...env,
        MASTODON_ACCESS_TOKEN: sandbox.mastodon.accessToken,
        MICROPUB_ACCESS_TOKEN: site.token,
      };
      config = {
        application: { dataDir },
        plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE, MICROPUB_PACKAGE],
        [ENDPOINT_PACKAGE]: {
          leaseMs: LEASE_MS,
          targetTimeoutMs: TARGET_TIMEOUT_MS,
          schedule: { enabled: true, whenLive: false, maxSleepMs: 500 },
          retry: { baseMs: 200, maxMs: 1_000 },
        },
        [MASTODON_PACKAGE]: { url: sandbox.mastodon.url, user: sandbox.mastodon.user },
        [MICROPUB_PACKAGE]: { micropubEndpoint: site.url, name: "Other site" },
      };
    });

    after(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await sandbox?.mastodon.close();
      await site?.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("completes the remaining posts and the interrupted send by itself, sending nothing twice", async () => {
      const mastodon = sandbox as Sandbox;
      const other = site as HangingMicropubTarget;
      const doomed = await startChildServer({ config, env, secret, password });
      servers.push(doomed);
      const token = await doomed.token("create update");

      // The fourth post is created on both targets, but neither answer comes back.
      other.holdAnswerOfCreate(INTERRUPTED);
      mastodon.mastodon.setBehaviour({
        hangMs: Number.POSITIVE_INFINITY,
        hangPhase: "after",
        skip: INTERRUPTED - 1,
        times: 1,
      });
      // Watched from before the posts are created: the run may reach the fourth while they are.
      // A bound for a hang, not a time budget: creating and sending four posts takes seconds.
      const hung = until(
        "the fourth status exists on Mastodon, unanswered",
        () => mastodon.mastodon.statuses.length >= INTERRUPTED,
        120_000,
      ).then(() => Date.now());
      hung.catch(() => {});
      const posts = await createPosts(doomed, token, POSTS, [mastodon.uid, other.url], "Restart");
      const hungAt = await hung;
      await until(
        "the fourth post exists on the Micropub site, unanswered",
        () => other.created.length >= INTERRUPTED,
      );
      const interrupted = mastodon.mastodon.statuses[INTERRUPTED - 1];
      assert.ok(interrupted?.idempotencyKey, "the interrupted status was posted with an Idempotency-Key");
      assert.equal((await doomed.kill("SIGKILL")).signal, "SIGKILL");
      assert.ok(Date.now() - hungAt < TARGET_TIMEOUT_MS, "the kill landed while both sends were in flight");
      assert.equal(other.created.length, INTERRUPTED, "the run stopped at the fourth post");
      mastodon.mastodon.clearBehaviour();
      assert.equal(mastodon.mastodon.statuses.length, INTERRUPTED, "nothing was sent after the kill");

      // The restart: no request but the health check that tells it is up.
      const restarted = await startChildServer({ config, env, secret, password });
      servers.push(restarted);
      const explain = (error: unknown) => {
        throw new Error(
          `${(error as Error).message}; Mastodon has ${mastodon.mastodon.statuses.length}, the site ${other.created.length}.\nThe restarted server wrote:\n${restarted.output()}`,
        );
      };
      await until(
        "every post is on Mastodon and the interrupted status was sent again with its key",
        () =>
          mastodon.mastodon.statuses.length === POSTS &&
          statusPostsByKey(mastodon).get(interrupted.idempotencyKey as string) === 2,
        45_000,
      ).catch(explain);
      await until("every post reached the Micropub site", () => other.created.length === POSTS).catch(
        explain,
      );
      // The restarted scheduler finds nothing left to do: nothing more will be sent.
      await settled([restarted]).catch(explain);

      for (let i = 1; i <= POSTS; i += 1)
        assert.equal(statusesByText(mastodon).get(`Restart ${i} of ${POSTS}`), 1, `Restart ${i} on Mastodon`);
      if (engine.name === "pglite") {
        assert.match(
          restarted.output(),
          /Taking over the lock of a process that is gone/,
          "the dead lock was taken over",
        );
        // Both sends were in flight when the process died, and the restart found them at once.
        assert.match(
          restarted.output(),
          /Resolved sends interrupted when the server last stopped \{"resend":1,"unknown":1\}/,
          "the restart resent Mastodon's send and marked the site's unknown",
        );
      }
      assert.deepEqual(
        [...other.created].sort(),
        posts.map((_, i) => `Restart ${i + 1} of ${POSTS}`).sort(),
        "each post created once on the Micropub site",
      );
      const interruptedUrl = posts[INTERRUPTED - 1] as string;
      const reader = await restarted.token("create update");
      for (const [index, url] of posts.entries()) {
        const response = await fetch(`${restarted.url}/micropub?q=source&url=${encodeURIComponent(url)}`, {
          headers: { authorization: `Bearer ${reader}`, accept: "application/json" },
        });
        const { properties } = (await response.json()) as { properties: Record<string, unknown[]> };
        const syndication = properties.syndication ?? [];
        const status = mastodon.mastodon.statuses.find((s) => s.text === `Restart ${index + 1} of ${POSTS}`);
        assert.ok(syndication.includes(status?.url), `${url} has its Mastodon URL`);
        if (url === interruptedUrl) {
          // Unknown outcome: the user confirms or sends it again; the post still names the site.
          assert.equal(syndication.length, 1);
          assert.deepEqual(properties["mp-syndicate-to"], [other.url]);
        } else {
          assert.equal(syndication.length, 2, `${url}: ${syndication}`);
          assert.equal(properties["mp-syndicate-to"], undefined, `${url} names no target any more`);
        }
      }
    });
  });
}
