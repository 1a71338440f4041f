// Figure: how long the endpoint stays locked after the process running a batch is killed with
// SIGKILL mid-run. Its lease is no longer renewed and lapses; the figure is the time from the kill
// until a batch on another process starts. With the default lease (30 s) and a configured 5 s.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openPostgres } from "../../src/server/database/postgres.ts";
import {
  type ChildServer,
  type ChildServerOptions,
  issueToken,
  startChildServer,
} from "../lib/child-server.ts";
import { type BenchContext, postgresSkipNote, postgresUrl } from "../lib/context.ts";
import { createSchema, ENGINE_LABEL, type EngineName, urlWithSchema } from "../lib/databases.ts";
import { createPost, startStreamingBatch } from "../lib/http-client.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { seconds, sleep } from "../lib/stats.ts";

const DEFAULT_LEASE_MS = 30_000;
const POSTS = 40;
const DELAY_MS = 200;
// Killed while the third post is being sent: two finished, one claimed and in flight.
const KILL_AFTER_MS = 2.5 * DELAY_MS;
const POLL_MS = 100;
const ALLOWANCE_MS = 1_000;
const TARGET_UID = "https://delay.example/@crash";

interface Recovery {
  engine: EngineName;
  leaseMs: number;
  /** From SIGKILL until a batch request to the other process answered 200. */
  recoveryMs: number;
  /** PGlite: the second process is started after the kill, on the same folder. */
  restartMs: number | null;
  /** What the lease still had to run when the process died (PostgreSQL, read just before the kill). */
  leaseLeftMs: number | null;
  /** Ledger rows the killed process left `sending` (PostgreSQL). */
  leftSending: number | null;
  refusedMeanwhile: number;
}

async function pollUntilStarted(
  server: ChildServer,
  token: string,
  killedAt: number,
  deadlineMs: number,
): Promise<{ at: number; refused: number }> {
  let refused = 0;
  for (;;) {
    const answer = await startStreamingBatch(server.url, token);
    if (answer.status === 200) return { at: performance.now(), refused };
    if (answer.status !== 409)
      throw new Error(`The other instance answered ${answer.status} instead of 200 or 409`);
    refused += 1;
    if (performance.now() - killedAt > deadlineMs)
      throw new Error(`No batch could start ${seconds(deadlineMs)} after the kill: the endpoint is wedged`);
    await sleep(POLL_MS);
  }
}

async function measure(context: BenchContext, engine: EngineName, leaseMs: number): Promise<Recovery> {
  const dir = join(context.workDir, `crash-${engine}-${leaseMs}`);
  const secret = randomBytes(24).toString("base64url");
  let schema: Awaited<ReturnType<typeof createSchema>> | undefined;
  const servers: ChildServer[] = [];
  try {
    let database: ChildServerOptions["database"];
    if (engine === "postgres") {
      schema = await createSchema(postgresUrl(context));
      database = { kind: "postgres", url: urlWithSchema(postgresUrl(context), schema.schema) };
    } else {
      database = { kind: "pglite", folder: join(dir, "db") };
    }
    const optionsOf = (name: string): ChildServerOptions => {
      const own = join(dir, name);
      mkdirSync(own, { recursive: true });
      return {
        dir: own,
        database,
        secret,
        // The default is what the server does without the option; 5 s is configured.
        endpoint: leaseMs === DEFAULT_LEASE_MS ? {} : { leaseMs },
        delayTarget: { uid: TARGET_UID, delayMs: DELAY_MS },
      };
    };
    const victim = await startChildServer(optionsOf("victim"));
    servers.push(victim);
    // On PostgreSQL the survivor runs beside the victim, as a second instance would.
    const survivorNow = engine === "postgres" ? await startChildServer(optionsOf("survivor")) : undefined;
    if (survivorNow) servers.push(survivorNow);
    const token = await issueToken(optionsOf("victim"));
    for (let i = 0; i < POSTS; i += 1)
      await createPost(victim.url, token, `Crash post ${i + 1}`, [TARGET_UID]);
    const started = await startStreamingBatch(victim.url, token);
    if (started.status !== 200) throw new Error(`The batch on the victim answered ${started.status}`);
    await sleep(KILL_AFTER_MS);
    let leaseLeftMs: number | null = null;
    const watcher = database.kind === "postgres" ? await openPostgres(database.url, { max: 1 }) : undefined;
    if (watcher) {
      const { rows } = await watcher.query<{ left: number }>(
        "SELECT (EXTRACT(EPOCH FROM (expires_at - now())) * 1000)::float8 AS left FROM syndication_lease",
      );
      leaseLeftMs = rows[0]?.left ?? null;
    }
    const killedAt = performance.now();
    victim.kill("SIGKILL");
    await victim.exited;
    let leftSending: number | null = null;
    if (watcher) {
      const { rows } = await watcher.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM syndication_targets WHERE state = 'sending'",
      );
      leftSending = rows[0]?.n ?? null;
      await watcher.close();
    }
    let restartMs: number | null = null;
    let survivor = survivorNow;
    if (!survivor) {
      survivor = await startChildServer(optionsOf("survivor"));
      servers.push(survivor);
      restartMs = performance.now() - killedAt;
    }
    const { at, refused } = await pollUntilStarted(survivor, token, killedAt, leaseMs + 60_000);
    return {
      engine,
      leaseMs,
      recoveryMs: at - killedAt,
      restartMs,
      leaseLeftMs,
      leftSending,
      refusedMeanwhile: refused,
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await schema?.drop();
  }
}

export async function crashRecovery(context: BenchContext): Promise<FigureSection> {
  const rows: FigureRow[] = [];
  const recoveries: Recovery[] = [];
  for (const engine of ["pglite", "postgres"] as const) {
    const label = ENGINE_LABEL[engine];
    for (const leaseMs of [DEFAULT_LEASE_MS, 5_000]) {
      const figure = `Crash recovery, lease ${seconds(leaseMs)}${leaseMs === DEFAULT_LEASE_MS ? " (default)" : " (configured)"}`;
      const goal =
        engine === "pglite"
          ? `≤ ${seconds(leaseMs + ALLOWANCE_MS)} or start-up + ${seconds(ALLOWANCE_MS)}`
          : `≤ ${seconds(leaseMs + ALLOWANCE_MS)}`;
      if (!context.engines.includes(engine)) {
        rows.push({
          figure,
          engine: label,
          measured: "-",
          value: null,
          unit: "ms",
          goal,
          verdict: "SKIP",
          note: postgresSkipNote(context),
        });
        continue;
      }
      context.log(`crash recovery: lease ${seconds(leaseMs)} on ${label}`);
      const r = await measure(context, engine, leaseMs);
      recoveries.push(r);
      // On PGlite a second process can only open the folder once the first has died: the endpoint
      // is back when the new process is up and the lease has lapsed, whichever comes later.
      const boundMs = Math.max(leaseMs, r.restartMs ?? 0) + ALLOWANCE_MS;
      const pass = r.recoveryMs <= boundMs;
      const how =
        r.restartMs === null
          ? `the second instance was refused ${r.refusedMeanwhile} times (409) until the lease lapsed; the lease had ${r.leaseLeftMs === null ? "?" : seconds(r.leaseLeftMs)} left at the kill; ${r.leftSending ?? "?"} ledger row(s) were left 'sending'`
          : r.refusedMeanwhile > 0
            ? `a new server on the same PGlite folder answered ${seconds(r.restartMs)} after the kill and was refused ${r.refusedMeanwhile} times (409) until the lease lapsed`
            : `a new server on the same PGlite folder answered ${seconds(r.restartMs)} after the kill, when the lease had already lapsed: its start-up, not the lease, set the figure`;
      rows.push({
        figure,
        engine: label,
        measured: seconds(r.recoveryMs),
        value: r.recoveryMs,
        unit: "ms",
        goal,
        verdict: pass ? "PASS" : "MISS",
        note: pass
          ? how
          : `${how}; the lease is renewed every third of its length, so it should lapse between ${seconds((2 * leaseMs) / 3)} and ${seconds(leaseMs)} after the kill, and a batch start ${seconds(boundMs)} after it at the latest`,
      });
    }
  }
  return {
    id: "crash-recovery",
    title: "Crash recovery",
    method:
      `A server (child process) starts a batch over ${POSTS} posts whose target takes ${DELAY_MS} ms, and is ` +
      `killed with SIGKILL ${KILL_AFTER_MS} ms later, mid-send. On PostgreSQL a second instance, already running ` +
      "on the same database, is then asked for a batch every " +
      `${POLL_MS} ms; on PGlite (one process per folder) a new server is started on the same folder and asked the ` +
      "same way. The figure is the time from the kill until a batch starts (200). The lease is renewed every " +
      "third of its length, so it lapses between two thirds of it and all of it after the kill; the goal allows " +
      `the lease plus ${seconds(ALLOWANCE_MS)} (on PGlite, or the new server's start-up plus as much, when that is longer). Rows left 'sending' are resolved later, once older than the lease ` +
      "plus the target timeout (decision 0013), and are not part of this figure.",
    rows,
    details: [],
    data: { posts: POSTS, delayMs: DELAY_MS, killAfterMs: KILL_AFTER_MS, pollMs: POLL_MS, recoveries },
  };
}
