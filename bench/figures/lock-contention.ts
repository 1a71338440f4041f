// Figure: 100 concurrent batch requests over HTTP to running servers (child processes): exactly one
// run starts, the other 99 are told 409 syndication_in_progress, and how fast they are told.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openPglite } from "../../src/server/database/pglite.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import type { Database } from "../../src/server/database/types.ts";
import { createLogger } from "../../src/server/logger.ts";
import { Lease } from "../../src/syndication/lease.ts";
import { RunLog } from "../../src/syndication/run-log.ts";
import {
  type ChildServer,
  type ChildServerOptions,
  issueToken,
  startChildServer,
} from "../lib/child-server.ts";
import { type BenchContext, postgresSkipNote, postgresUrl } from "../lib/context.ts";
import {
  createSchema,
  ENGINE_LABEL,
  type EngineName,
  openBenchDatabase,
  urlWithSchema,
} from "../lib/databases.ts";
import { createPost, postSyndicate, type Timed } from "../lib/http-client.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { measureRoundTrips } from "../lib/round-trips.ts";
import { count, type Distribution, distribution, ms } from "../lib/stats.ts";

const CONCURRENT = 100;
const P99_GOAL_MS = 20;
// Each wave's run lasts POSTS_PER_WAVE × DELAY_MS, long enough for every rival request to be answered.
const POSTS_PER_WAVE = 20;
const DELAY_MS = 100;
const TARGET_UID = "https://delay.example/@contention";

interface Wave {
  ran: number;
  refused: number;
  other: number[];
  refusedMs: number[];
  missingRetryAfter: number;
}

/** What a refusal costs in the core, without HTTP: the diagnosis beside the figure. */
interface LeaseCosts {
  /** Lease.acquire while another holder has the lease (what every refused request runs first). */
  refusedAcquire: Distribution;
  /** Lease.current (what it runs next, for Retry-After). */
  current: Distribution;
  /** A one-row UPDATE committed on its own. */
  commitMs: number;
  selectMs: number;
  /** 100 refused acquire + current at once: when each finished. */
  concurrent: Distribution;
}

interface ContentionMeasurement {
  engine: EngineName;
  instances: number;
  waves: Wave[];
  batchRuns: number;
  refusedMs: number[];
  lease: LeaseCosts;
}

async function sample(times: number, run: () => Promise<unknown>): Promise<Distribution> {
  for (let index = 0; index < 20; index += 1) await run();
  const samples: number[] = [];
  for (let index = 0; index < times; index += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return distribution(samples);
}

async function leaseCosts(context: BenchContext, engine: EngineName): Promise<LeaseCosts> {
  const bench = await openBenchDatabase(engine, engine === "postgres" ? postgresUrl(context) : undefined);
  try {
    const { database } = bench;
    const trips = await measureRoundTrips(database);
    const lease = new Lease(database, createLogger("error"));
    const runLog = new RunLog(database);
    const take = (holder: string) =>
      lease.acquire(holder, "batch", (tx) => runLog.start("batch", "batch", holder, tx));
    if (!(await take("holder-a"))) throw new Error("The lease could not be taken on an empty database");
    const refusedAcquire = await sample(200, async () => {
      if (await take("holder-b")) throw new Error("A second holder took a live lease");
    });
    const current = await sample(200, () => lease.current());
    const started = performance.now();
    const finished = await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        await take("holder-b");
        await lease.current();
        return performance.now() - started;
      }),
    );
    return {
      refusedAcquire,
      current,
      commitMs: trips.commitMs,
      selectMs: trips.selectMs,
      concurrent: distribution(finished),
    };
  } finally {
    await bench.close();
  }
}

async function wave(servers: readonly ChildServer[], token: string, label: number): Promise<Wave> {
  const [first] = servers;
  if (!first) throw new Error("no server");
  for (let i = 0; i < POSTS_PER_WAVE; i += 1)
    await createPost(first.url, token, `Contention wave ${label}, post ${i + 1}`, [TARGET_UID]);
  const answers: Timed[] = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      postSyndicate((servers[i % servers.length] ?? first).url, token),
    ),
  );
  const refused = answers.filter((a) => a.status === 409);
  return {
    ran: answers.filter((a) => a.status === 200).length,
    refused: refused.length,
    other: answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => a.status),
    refusedMs: refused.map((a) => a.ms),
    missingRetryAfter: refused.filter((a) => !a.retryAfter).length,
  };
}

async function countBatchRuns(database: Database): Promise<number> {
  const { rows } = await database.query<{ runs: number }>(
    "SELECT count(*)::int AS runs FROM syndication_runs WHERE kind = 'batch'",
  );
  return rows[0]?.runs ?? 0;
}

async function measure(
  context: BenchContext,
  engine: EngineName,
  waves: number,
): Promise<ContentionMeasurement> {
  const dir = join(context.workDir, `contention-${engine}`);
  const secret = randomBytes(24).toString("base64url");
  const instances = engine === "postgres" ? 2 : 1;
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
    const optionsOf = (index: number): ChildServerOptions => {
      const own = join(dir, `instance-${index}`);
      mkdirSync(own, { recursive: true });
      return { dir: own, database, secret, delayTarget: { uid: TARGET_UID, delayMs: DELAY_MS } };
    };
    // One at a time: the first applies the migrations.
    for (let index = 0; index < instances; index += 1) servers.push(await startChildServer(optionsOf(index)));
    const token = await issueToken(optionsOf(0));
    const results: Wave[] = [];
    // Wave 0 warms the servers up (first requests compile code paths) and is not counted.
    for (let index = 0; index <= waves; index += 1) results.push(await wave(servers, token, index));
    await Promise.all(servers.map((server) => server.stop()));
    servers.length = 0;
    let batchRuns: number;
    if (database.kind === "postgres") {
      const check = await openPostgres(database.url, { max: 1 });
      batchRuns = await countBatchRuns(check);
      await check.close();
    } else {
      const check = await openPglite(database.folder);
      batchRuns = await countBatchRuns(check);
      await check.close();
    }
    const measured = results.slice(1);
    return {
      engine,
      instances,
      waves: results,
      batchRuns,
      refusedMs: measured.flatMap((w) => w.refusedMs),
      lease: await leaseCosts(context, engine),
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await schema?.drop();
  }
}

/** Why the 409s are slow, from the core's own costs measured without HTTP. */
function explainRefusals(m: ContentionMeasurement): string {
  const { lease } = m;
  const queue =
    `Every refused request first runs Lease.acquire, then Lease.current. Measured alone, a refused acquire ` +
    `takes ${ms(lease.refusedAcquire.median)} (median) against ${ms(lease.current.median)} for current; ` +
    `${CONCURRENT} of them at once, in process and without HTTP, finish at p99 ${ms(lease.concurrent.p99)}: they queue.`;
  if (m.engine === "postgres")
    return (
      `${queue} The acquire's INSERT … ON CONFLICT (name) DO UPDATE … WHERE expires_at < now() locks the lease row ` +
      "even when its WHERE refuses (PostgreSQL locks every conflicting row of ON CONFLICT DO UPDATE), so each " +
      `refusal writes a WAL record and commits durably (a commit costs ${ms(lease.commitMs)} here, a SELECT ` +
      `${ms(lease.selectMs)}) while holding the row lock: the refusals pass one by one. See "Suggested fixes".`
    );
  return (
    `${queue} PGlite runs one statement at a time for the whole process, and each refusal is a transaction ` +
    `(BEGIN, INSERT … ON CONFLICT, COMMIT) plus a read, beside the run's own statements and the HTTP work of ` +
    `every request on the same thread. See "Suggested fixes".`
  );
}

export async function lockContention(context: BenchContext): Promise<FigureSection> {
  const waves = context.quick ? 1 : 3;
  const rows: FigureRow[] = [];
  const measurements: ContentionMeasurement[] = [];
  for (const engine of ["pglite", "postgres"] as const) {
    const label = ENGINE_LABEL[engine];
    const where = engine === "postgres" ? "2 instances" : "1 instance";
    const oneRun = `${count(CONCURRENT)} concurrent batch requests (${where}): runs started per wave`;
    const p99 = `409 answers to ${count(CONCURRENT)} concurrent batch requests (${where}): p99`;
    if (!context.engines.includes(engine)) {
      const note = postgresSkipNote(context);
      rows.push({
        figure: oneRun,
        engine: label,
        measured: "-",
        value: null,
        unit: "runs",
        goal: "exactly 1",
        verdict: "SKIP",
        note,
      });
      rows.push({
        figure: p99,
        engine: label,
        measured: "-",
        value: null,
        unit: "ms",
        goal: `≤ ${P99_GOAL_MS} ms`,
        verdict: "SKIP",
        note,
      });
      continue;
    }
    context.log(`lock contention: ${waves} waves of ${CONCURRENT} requests on ${label} (${where})`);
    const m = await measure(context, engine, waves);
    measurements.push(m);
    const exact = m.waves.every((w) => w.ran === 1 && w.refused === CONCURRENT - 1 && w.other.length === 0);
    const runsMatch = m.batchRuns === m.waves.length;
    const noRetryAfter = m.waves.reduce((total, w) => total + w.missingRetryAfter, 0);
    rows.push({
      figure: oneRun,
      engine: label,
      measured: m.waves.map((w) => w.ran).join(", "),
      value: Math.max(...m.waves.map((w) => w.ran)),
      unit: "runs",
      goal: "exactly 1",
      verdict: exact && runsMatch && noRetryAfter === 0 ? "PASS" : "MISS",
      note:
        exact && runsMatch
          ? `every wave: one 200, ${CONCURRENT - 1} × 409 with Retry-After; ${m.batchRuns} batch runs recorded for ${m.waves.length} waves (the first wave warms up)`
          : `answers per wave: ${m.waves.map((w) => `${w.ran}×200, ${w.refused}×409${w.other.length ? `, other: ${w.other.join(" ")}` : ""}`).join("; ")}; ${m.batchRuns} batch runs recorded for ${m.waves.length} waves; ${noRetryAfter} 409 answers without Retry-After`,
    });
    const d = distribution(m.refusedMs);
    const pass = d.p99 <= P99_GOAL_MS;
    rows.push({
      figure: p99,
      engine: label,
      measured: ms(d.p99),
      value: d.p99,
      unit: "ms",
      goal: `≤ ${P99_GOAL_MS} ms`,
      verdict: pass ? "PASS" : "MISS",
      note:
        `${count(d.count)} answers over ${waves} waves: median ${ms(d.median)}, max ${ms(d.max)}` +
        (pass ? "" : `. ${explainRefusals(m)}`),
    });
  }
  const slow = rows.some((row) => row.verdict === "MISS" && row.unit === "ms");
  const postgresCosts = measurements.find((m) => m.engine === "postgres")?.lease;
  const findings = slow
    ? [
        "**409 latency** (src/syndication/syndication.ts, src/syndication/lease.ts): (1) in " +
          "`Syndication.startBatch`, call `this.lease.current()` before `lease.acquire` and throw " +
          "`SyndicationInProgressError` at once when a live lease is held: a refusal becomes one indexed read" +
          `${postgresCosts ? ` (${ms(postgresCosts.current.median)} on PostgreSQL here)` : ""} with no transaction, ` +
          "no row lock and no write; the acquire stays the arbiter whenever the lease looks free, so a race " +
          "remains safe. (2) In `Lease.acquire`, replace `INSERT … ON CONFLICT (name) DO UPDATE … WHERE " +
          "lease.expires_at < now()` with `UPDATE syndication_lease SET … WHERE name = $1 AND expires_at < now() " +
          "RETURNING …` followed, when it returns no row, by `INSERT … ON CONFLICT (name) DO NOTHING RETURNING …`. " +
          "ON CONFLICT DO UPDATE locks the conflicting row even when its WHERE refuses (PostgreSQL's INSERT " +
          'reference: a row "locked but not updated because an ON CONFLICT DO UPDATE … WHERE clause condition ' +
          'was not satisfied"), so every refusal writes a WAL record and waits for a durable commit while holding ' +
          `the row lock${postgresCosts ? ` (${ms(postgresCosts.refusedAcquire.median)} per refused acquire here, against ${ms(postgresCosts.current.median)} for current)` : ""}; ` +
          "the UPDATE and DO NOTHING forms refuse without locking or writing, so requests that pass the read " +
          "while the winner is still committing no longer queue one flush each.",
      ]
    : [];
  return {
    findings,
    id: "lock-contention",
    title: "Lock contention",
    method:
      `The real server runs as child processes (\`node bin/possekit.js serve\`; two instances on one PostgreSQL ` +
      `schema, one on a PGlite folder) with a target that takes ${DELAY_MS} ms per post. Each wave creates ` +
      `${POSTS_PER_WAVE} posts through Micropub, then sends ${CONCURRENT} \`POST /syndicate\` at once (alternating ` +
      "instances). Exactly one may start a run; the others must get 409 with Retry-After. The latency of each 409 " +
      `is measured by the client, from sending to the end of the body. ${waves} measured waves follow a warm-up wave.`,
    rows,
    details: measurements.map(
      (m) =>
        `The lease in the core, ${ENGINE_LABEL[m.engine]}, without HTTP: a refused \`Lease.acquire\` median ` +
        `${ms(m.lease.refusedAcquire.median)} (p99 ${ms(m.lease.refusedAcquire.p99)}), \`Lease.current\` median ` +
        `${ms(m.lease.current.median)}; ${CONCURRENT} refused acquire + current at once finish at median ` +
        `${ms(m.lease.concurrent.median)}, p99 ${ms(m.lease.concurrent.p99)}. One durable commit costs ` +
        `${ms(m.lease.commitMs)} here, SELECT 1 ${ms(m.lease.selectMs)}.`,
    ),
    data: { concurrent: CONCURRENT, waves, measurements },
  };
}
