// The scheduler's figures (decision 0014) (`npm run bench -- --only scheduler`):
// - from "due" to the send starting (goal ≤ 1 s): posts published with schedule.afterPublishMs,
//   so each becomes due at a known instant while the scheduler sleeps; the target notes when it
//   is called. Median and p99.
// - idle CPU over 60 s of a process whose database holds 10,000 syndicated posts and nothing due
//   (goal < 0.5 % of one core), with the scheduler at its default one-minute bound.
// The real core, post service and migrations on the embedded database (in memory).
import { performance } from "node:perf_hooks";
import type { SyndicatorPlugin } from "../../src/contract/plugin.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openPglite } from "../../src/server/database/pglite.ts";
import { createLogger } from "../../src/server/logger.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { Scheduler } from "../../src/syndication/due/scheduler.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureSection } from "../lib/report.ts";
import { distribution, sleep } from "../lib/stats.ts";

const UID = "https://bench.example/@target";
const publication = {
  me: "https://bench.example/",
  postUrlPattern: "{me}notes/{slug}/",
  timezone: "UTC",
  name: "bench",
};
const logger = createLogger("error");

async function setUp(afterPublishMs: number, called: (url: string) => void) {
  const database = await openPglite();
  await migrate(database, [...postMigrations, ...syndicationMigrations]);
  const posts = createPostService(database, publication);
  const target: SyndicatorPlugin = {
    id: "bench-target",
    name: "Bench target",
    meta: {},
    init() {},
    info: { uid: UID, name: "Bench target" },
    async syndicate(properties) {
      called(String(properties.url));
      return `${UID}/${Math.random().toString(36).slice(2)}`;
    },
  };
  const syndication = new Syndication({
    database,
    posts,
    syndicators: () => [target],
    publication,
    logger,
    options: { schedule: { whenLive: false, afterPublishMs } },
  });
  return { database, posts, syndication };
}

async function dueToSend(samples: number): Promise<number[]> {
  const AFTER_MS = 1_500;
  const calledAt = new Map<string, number>();
  const { database, posts, syndication } = await setUp(AFTER_MS, (url) => calledAt.set(url, Date.now()));
  const scheduler = new Scheduler(syndication, logger);
  // As the plug-in does: a new post wakes the scheduler, which then sleeps until it is due.
  posts.onChange?.(() => scheduler.nudge());
  scheduler.start();
  const latencies: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const post = await posts.create({
      properties: { content: `due ${i}`, "mp-syndicate-to": [UID] },
    });
    const dueAt = post.published.getTime() + AFTER_MS;
    const deadline = dueAt + 10_000;
    while (!calledAt.has(post.url) && Date.now() < deadline) await sleep(5);
    const sent = calledAt.get(post.url);
    if (sent === undefined) throw new Error(`post ${i} was not sent within 10 s of being due`);
    latencies.push(sent - dueAt);
  }
  await Promise.all([scheduler.stop(), syndication.runs.shutdown()]);
  await database.close();
  return latencies;
}

async function idleCpu(posts: number, seconds: number) {
  const { database, syndication } = await setUp(0, () => {});
  await database.exec(`
    INSERT INTO posts (url, slug, type, properties, status, published)
    SELECT 'https://bench.example/notes/' || n || '/', 'p' || n, 'entry',
           jsonb_build_object('type', 'entry', 'content', 'post ' || n, 'post-status', 'published',
                              'syndication', jsonb_build_array('${UID}/' || n)),
           'published', timestamptz '2020-01-01' + n * interval '1 minute'
      FROM generate_series(1, ${posts}) AS n;
    INSERT INTO syndication_targets (post_id, target_uid, state, url, attempts, idempotency_key, written_back)
    SELECT id, '${UID}', 'syndicated', '${UID}/' || id, 1, md5(id::text), true FROM posts;`);
  const scheduler = new Scheduler(syndication, logger);
  scheduler.start();
  await sleep(2_000);
  const wakeUpsBefore = scheduler.state().wakeUps;
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await sleep(seconds * 1_000);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallBefore;
  const wakeUps = scheduler.state().wakeUps - wakeUpsBefore;
  await Promise.all([scheduler.stop(), syndication.runs.shutdown()]);
  await database.close();
  return { percent: ((cpu.user + cpu.system) / 1_000 / wallMs) * 100, wakeUps, wallMs };
}

export async function schedulerFigures(context: BenchContext): Promise<FigureSection> {
  const samples = context.quick ? 10 : 40;
  const seconds = context.quick ? 10 : 60;
  context.log(`scheduler: due → send over ${samples} posts`);
  const latency = distribution(await dueToSend(samples));
  context.log(`scheduler: idle CPU over ${seconds} s with 10,000 syndicated posts`);
  const idle = await idleCpu(10_000, seconds);
  return {
    id: "scheduler",
    title: "Unattended syndication: the scheduler",
    method:
      "Posts published with schedule.afterPublishMs become due at a known instant while the scheduler sleeps; the target notes when it is called. Idle: a process whose embedded database holds 10,000 syndicated posts and nothing due, at the default one-minute bound, its CPU time over the wall time.",
    rows: [
      {
        figure: "From due to the send starting, median",
        engine: "PGlite",
        measured: `${latency.median} ms`,
        value: latency.median,
        unit: "ms",
        goal: "≤ 1000 ms",
        verdict: latency.median <= 1000 ? "PASS" : "MISS",
      },
      {
        figure: "From due to the send starting, p99",
        engine: "PGlite",
        measured: `${latency.p99} ms`,
        value: latency.p99,
        unit: "ms",
        goal: "≤ 1000 ms",
        verdict: latency.p99 <= 1000 ? "PASS" : "MISS",
      },
      {
        figure: `Idle CPU, nothing due, ${Math.round(idle.wallMs / 1000)} s`,
        engine: "PGlite",
        measured: `${idle.percent.toFixed(3)} % of a core (${idle.wakeUps} wake-ups)`,
        value: idle.percent,
        unit: "%",
        goal: "< 0.5 %",
        verdict: idle.percent < 0.5 ? "PASS" : "MISS",
      },
    ],
    details: [],
    data: { latency, idle },
  };
}
