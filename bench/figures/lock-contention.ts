// Figure: 100 concurrent batch requests over HTTP to running servers (child processes): exactly one
// run starts, the other 99 are told 409 syndication_in_progress, and how fast they are told.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openPglite } from "../../src/server/database/pglite.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import type { Database } from "../../src/server/database/types.ts";
import { type BenchContext, postgresSkipNote, postgresUrl } from "../lib/context.ts";
import { type ChildServer, type ChildServerOptions, issueToken, startChildServer } from "../lib/child-server.ts";
import { createSchema, ENGINE_LABEL, type EngineName, urlWithSchema } from "../lib/databases.ts";
import { createPost, postSyndicate, type Timed } from "../lib/http-client.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { count, distribution, ms } from "../lib/stats.ts";

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

interface ContentionMeasurement {
  engine: EngineName;
  instances: number;
  waves: Wave[];
  batchRuns: number;
  refusedMs: number[];
}

async function wave(servers: readonly ChildServer[], token: string, label: number): Promise<Wave> {
  const [first] = servers;
  if (!first) throw new Error("no server");
  for (let i = 0; i < POSTS_PER_WAVE; i += 1)
    await createPost(first.url, token, `Contention wave ${label}, post ${i + 1}`, [TARGET_UID]);
  const answers: Timed[] = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) => postSyndicate((servers[i % servers.length] ?? first).url, token)),
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

async function measure(context: BenchContext, engine: EngineName, waves: number): Promise<ContentionMeasurement> {
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
    return { engine, instances, waves: results, batchRuns, refusedMs: measured.flatMap((w) => w.refusedMs) };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await schema?.drop();
  }
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
      rows.push({ figure: oneRun, engine: label, measured: "-", value: null, unit: "runs", goal: "exactly 1", verdict: "SKIP", note });
      rows.push({ figure: p99, engine: label, measured: "-", value: null, unit: "ms", goal: `≤ ${P99_GOAL_MS} ms`, verdict: "SKIP", note });
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
      note: exact && runsMatch
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
        (pass
          ? ""
          : `. The 99 refusals of a wave arrive together and are served one after another: each takes the lease's` +
            " transaction (BEGIN, INSERT … ON CONFLICT on the one lease row, COMMIT) and then reads the lease again," +
            ` so the last waits for all before it (median ${ms(d.median)} ≈ half the queue). See "Suggested fixes".`),
    });
  }
  return {
    id: "lock-contention",
    title: "Lock contention",
    method:
      `The real server runs as child processes (\`node bin/possekit.js serve\`; two instances on one PostgreSQL ` +
      `schema, one on a PGlite folder) with a target that takes ${DELAY_MS} ms per post. Each wave creates ` +
      `${POSTS_PER_WAVE} posts through Micropub, then sends ${CONCURRENT} \`POST /syndicate\` at once (alternating ` +
      "instances). Exactly one may start a run; the others must get 409 with Retry-After. The latency of each 409 " +
      `is measured by the client, from sending to the end of the body. ${waves} measured waves follow a warm-up wave.`,
    rows,
    details: [],
    data: { concurrent: CONCURRENT, waves, measurements },
  };
}
