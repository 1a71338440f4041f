// Figure: how long the post service takes to find the next post awaiting syndication, among 10,000
// and among 1,000,000 stored posts of which few await. The partial index on (published, id) makes
// it independent of the number of posts already syndicated; EXPLAIN shows the plan that does it.
import { performance } from "node:perf_hooks";
import type { Database } from "../../src/contract/database.ts";
import type { AwaitingCursor } from "../../src/contract/posts.ts";
import { createPostService, postQueries } from "../../src/server/posts/post-service.ts";
import type { PostService } from "../../src/server/posts/post-service-interface.ts";
import { benchPublication } from "../fixtures/bench-targets.ts";
import { type BenchContext, postgresSkipNote, postgresUrl } from "../lib/context.ts";
import { ENGINE_LABEL, type EngineName, openBenchDatabase } from "../lib/databases.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { awaitingAmong, type SeedOptions, seedPosts } from "../lib/seed.ts";
import { count, type Distribution, distribution, ms, seconds } from "../lib/stats.ts";

const RATIO_GOAL = 1.5;
const PARTIAL_INDEX = "posts_awaiting_syndication";
// One post in a thousand still awaits; drafts and deleted posts are scattered among the rest.
const AWAIT_EVERY = 1_000;

interface Lookup {
  posts: number;
  awaiting: number;
  seedMs: number;
  first: Distribution;
  afterCursor: Distribution;
  indexes: string[];
  plan: string;
  planWithoutStatistics: string;
  /** The indexes of the plan before ANALYZE. */
  indexesWithoutStatistics: string[];
}

/** Names of the indexes a plan reads, found anywhere in EXPLAIN's JSON. */
function indexesIn(plan: unknown): string[] {
  const names: string[] = [];
  JSON.stringify(plan, (key, value: unknown) => {
    if (key === "Index Name" && typeof value === "string") names.push(value);
    return value;
  });
  return names;
}

async function explainText(
  database: Database,
  sql: string,
  params: unknown[],
  analyze: boolean,
): Promise<string> {
  const { rows } = await database.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (${analyze ? "ANALYZE, BUFFERS, " : ""}FORMAT TEXT) ${sql}`,
    params,
  );
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

async function timeCalls(iterations: number, call: () => Promise<unknown>): Promise<Distribution> {
  for (let index = 0; index < Math.min(200, iterations); index += 1) await call();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return distribution(samples);
}

async function measure(
  context: BenchContext,
  engine: EngineName,
  posts: number,
  iterations: number,
): Promise<Lookup> {
  const bench = await openBenchDatabase(engine, engine === "postgres" ? postgresUrl(context) : undefined);
  try {
    const { database } = bench;
    const seed: SeedOptions = {
      count: posts,
      targets: ["https://social.example/@bench"],
      awaitEvery: AWAIT_EVERY,
      mixed: true,
    };
    const seedStarted = performance.now();
    await seedPosts(database, seed);
    const seedMs = performance.now() - seedStarted;
    // The plan a fresh database gets before any statistics exist (PGlite has no autovacuum to
    // gather them), then the one after ANALYZE, which PostgreSQL's autovacuum runs by itself.
    const planWithoutStatistics = await explainText(database, postQueries.nextAwaiting, [1], false);
    const unanalyzed = await database.query<Record<string, unknown>>(
      `EXPLAIN (FORMAT JSON) ${postQueries.nextAwaiting}`,
      [1],
    );
    await database.exec("ANALYZE posts");
    const service: PostService = createPostService(database, benchPublication);
    const [first] = await service.nextAwaitingSyndication(undefined, 1);
    if (!first) throw new Error("No awaiting post among the seeded ones: the seed is wrong");
    // A cursor halfway through the awaiting posts, as a batch has after a few pages.
    const middle = await service.listAwaitingSyndication({
      offset: Math.floor(awaitingAmong(seed) / 2),
      limit: 1,
    });
    const cursorPost = middle[0] ?? first;
    const cursor: AwaitingCursor = { published: cursorPost.published, id: cursorPost.id };
    const firstTimes = await timeCalls(iterations, () => service.nextAwaitingSyndication(undefined, 1));
    const afterTimes = await timeCalls(iterations, () => service.nextAwaitingSyndication(cursor, 1));
    const { rows } = await database.query<Record<string, unknown>>(
      `EXPLAIN (FORMAT JSON) ${postQueries.nextAwaiting}`,
      [1],
    );
    const afterPlan = await database.query<Record<string, unknown>>(
      `EXPLAIN (FORMAT JSON) ${postQueries.nextAwaitingAfter}`,
      [1, cursor.published.toISOString(), cursor.id],
    );
    return {
      posts,
      awaiting: awaitingAmong(seed),
      seedMs,
      first: firstTimes,
      afterCursor: afterTimes,
      indexes: [...new Set([...indexesIn(rows), ...indexesIn(afterPlan.rows)])],
      plan: await explainText(database, postQueries.nextAwaiting, [1], true),
      planWithoutStatistics,
      indexesWithoutStatistics: indexesIn(unanalyzed.rows),
    };
  } finally {
    await bench.close();
  }
}

interface TieCheck {
  posts: number;
  pageSize: number;
  /** Rows nextAwaitingSyndication returned while paging through them with its cursor. */
  walked: number;
  /** Ids in the order walked. */
  order: string[];
  /** Posts `list` showed, paging with its cursor. */
  listed: number;
}

/**
 * Keyset paging among posts that share one `published` time (an import, a batch of notes): every
 * post should come once, in creation order, whatever the ids' number of digits.
 */
async function tieCheck(): Promise<TieCheck> {
  const bench = await openBenchDatabase("pglite");
  try {
    const service = createPostService(bench.database, benchPublication);
    const posts = 12;
    const pageSize = 5;
    for (let i = 1; i <= posts; i += 1)
      await service.create({
        properties: {
          content: `Tie ${i}`,
          published: "2024-01-01T00:00:00Z",
          "mp-syndicate-to": ["https://t.example/@a"],
        },
        slug: `tie-${i}`,
      });
    const order: string[] = [];
    let cursor: AwaitingCursor | undefined;
    for (let guard = 0; guard < 50; guard += 1) {
      const page = await service.nextAwaitingSyndication(cursor, pageSize);
      const last = page.at(-1);
      if (!last) break;
      order.push(...page.map((post) => post.id));
      cursor = { published: last.published, id: last.id };
    }
    let listed = 0;
    let before: string | undefined;
    for (let guard = 0; guard < 50; guard += 1) {
      const page = await service.list({ limit: pageSize, ...(before ? { before } : {}) });
      listed += page.posts.length;
      if (!page.next) break;
      before = page.next;
    }
    return { posts, pageSize, walked: order.length, order, listed };
  } finally {
    await bench.close();
  }
}

export async function nextAwaiting(context: BenchContext): Promise<FigureSection> {
  const sizes = context.quick ? [10_000, 100_000] : [10_000, 1_000_000];
  const iterations = context.quick ? 300 : 2_000;
  const [small, large] = sizes as [number, number];
  const rows: FigureRow[] = [];
  const details: string[] = [];
  const data: Record<string, unknown> = { sizes, iterations, awaitEvery: AWAIT_EVERY };
  for (const engine of ["pglite", "postgres"] as const) {
    const label = ENGINE_LABEL[engine];
    if (!context.engines.includes(engine)) {
      rows.push({
        figure: `Next awaiting post among ${count(large)} vs ${count(small)} (median ratio)`,
        engine: label,
        measured: "-",
        value: null,
        unit: "ratio",
        goal: `≤ ${RATIO_GOAL}`,
        verdict: "SKIP",
        note: postgresSkipNote(context),
      });
      continue;
    }
    const lookups: Lookup[] = [];
    for (const posts of sizes) {
      context.log(`next awaiting: ${count(posts)} posts on ${label}`);
      lookups.push(await measure(context, engine, posts, iterations));
    }
    data[engine] = lookups;
    const [a, b] = lookups as [Lookup, Lookup];
    for (const lookup of lookups) {
      const partial = lookup.indexes.length === 1 && lookup.indexes[0] === PARTIAL_INDEX;
      rows.push({
        figure: `Next awaiting post among ${count(lookup.posts)} posts (${count(lookup.awaiting)} await): median / p99`,
        engine: label,
        measured: `${ms(lookup.first.median)} / ${ms(lookup.first.p99)}`,
        value: lookup.first.median,
        unit: "ms",
        goal: "-",
        verdict: "INFO",
        note:
          `after a cursor: ${ms(lookup.afterCursor.median)} / ${ms(lookup.afterCursor.p99)}; ` +
          `plan reads ${lookup.indexes.join(", ") || "no index"}${partial ? " (the partial index)" : " (NOT the partial index alone)"}; ` +
          `seeded in ${seconds(lookup.seedMs)}`,
      });
    }
    const ratio = b.first.median / a.first.median;
    const cursorRatio = b.afterCursor.median / a.afterCursor.median;
    const usesPartial = lookups.every((l) => l.indexes.length === 1 && l.indexes[0] === PARTIAL_INDEX);
    const pass = ratio <= RATIO_GOAL && cursorRatio <= RATIO_GOAL && usesPartial;
    rows.push({
      figure: `Next awaiting post among ${count(large)} vs ${count(small)} (median ratio)`,
      engine: label,
      measured: `${ratio.toFixed(2)}× (after a cursor ${cursorRatio.toFixed(2)}×)`,
      value: ratio,
      unit: "ratio",
      goal: `≤ ${RATIO_GOAL}×, partial index`,
      verdict: pass ? "PASS" : "MISS",
      note: pass
        ? "both plans walk only the partial index posts_awaiting_syndication"
        : usesPartial
          ? `the plan uses the partial index, but the median grew from ${ms(a.first.median)} to ${ms(b.first.median)}; compare the EXPLAIN ANALYZE below (buffers read)`
          : `the plan does not use the partial index alone (${lookups.map((l) => l.indexes.join(", ") || "none").join(" / ")}): see EXPLAIN below`,
    });
    for (const lookup of lookups) {
      details.push(
        `EXPLAIN ANALYZE of \`nextAwaitingSyndication(undefined, 1)\`, ${label}, ${count(lookup.posts)} posts (after ANALYZE):\n\n` +
          "```\n" +
          lookup.plan +
          "\n```",
      );
      const same = lookup.indexesWithoutStatistics.join() === lookup.indexes.join();
      details.push(
        same
          ? `Before ANALYZE (a fresh database, as PGlite always is: it has no autovacuum) the plan reads the same index, ${lookup.indexesWithoutStatistics.join(", ")}.`
          : `Before ANALYZE (a fresh database, as PGlite always is: it has no autovacuum), ${label}, ${count(lookup.posts)} posts, the plan differs:\n\n` +
              "```\n" +
              lookup.planWithoutStatistics +
              "\n```",
      );
    }
  }
  const plans = Object.values(data)
    .filter((value): value is Lookup[] => Array.isArray(value))
    .flat()
    .map((lookup) => lookup.plan);
  const textOrder = plans.some((plan) => /Sort Key: .*\(\(id\)::text\)/.test(plan));
  context.log("next awaiting: keyset paging among posts of one published time");
  const ties = await tieCheck();
  data.ties = ties;
  const tiesRight = ties.walked === ties.posts && ties.listed === ties.posts;
  rows.push({
    figure: `Keyset paging, ${ties.posts} posts of one published time, pages of ${ties.pageSize}: rows walked / posts listed`,
    engine: ENGINE_LABEL.pglite,
    measured: `${ties.walked} / ${ties.listed}`,
    value: ties.walked,
    unit: "rows",
    goal: `${ties.posts} / ${ties.posts}`,
    verdict: tiesRight ? "PASS" : "MISS",
    note: tiesRight
      ? "every post once, in creation order"
      : `nextAwaitingSyndication returned ids ${ties.order.join(", ")}; list showed ${ties.listed} of ${ties.posts}. See "Suggested fixes".`,
  });
  const findings =
    textOrder || !tiesRight
      ? [
          "**Keyset order by text ids** (src/server/posts/post-service.ts): the plans above sort by " +
            "`((id)::text)`. The queries select `id::text AS id` and then `ORDER BY published, id`, and in ORDER BY " +
            "a bare name that is also an output column means the output column: the rows are ordered by the id as " +
            "text ('10' before '9') while the keyset WHERE `(published, id) > ($2, $3::bigint)` compares the " +
            "bigint column. Among posts with the same `published` whose ids cross a power of ten, a page's cursor " +
            `then skips or repeats posts: with ${ties.posts} posts of one \`published\` and pages of ${ties.pageSize}, ` +
            `\`nextAwaitingSyndication\` returned ${ties.walked} rows (a batch still ends, through its \`tried\` set ` +
            `and extra passes, but not in creation order), and \`list\` showed ${ties.listed} of the ${ties.posts} posts. ` +
            "It also adds the Incremental Sort above to every page. Fix: qualify " +
            "the sort keys with the table in every keyset query (`postQueries.newest`, `olderThan`, `newerThan`, " +
            "`nextAwaiting`, `nextAwaitingAfter`, and `listAwaitingSyndication`): `ORDER BY posts.published, " +
            "posts.id` (DESC for the newest-first ones); the plans then read the index in order with no sort.",
        ]
      : [];
  return {
    findings,
    id: "next-awaiting",
    title: "Finding the next awaiting post",
    method:
      `Posts are bulk-inserted with generate_series into the real posts table: one in ${count(AWAIT_EVERY)} still ` +
      "names a target, the rest were syndicated long ago, with drafts (every 7th) and deleted posts (every 11th) " +
      `among them. After ANALYZE, \`posts.nextAwaitingSyndication(undefined, 1)\` is timed ${count(iterations)} times ` +
      "(after 200 warm-up calls), and again with a cursor halfway through the awaiting posts, as a batch's later " +
      "pages are. The goal is the ratio of the medians, large over small, with the plan on the partial index.",
    rows,
    details,
    data,
  };
}
