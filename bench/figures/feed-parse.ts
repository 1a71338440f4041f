// Figure (decision 0034): a 1 MB feed parsed and normalised, median of repeated runs, for each format.
// The goal row is RSS 2.0 as a poll reads it: every entry's key, hash and JF2 properties, with the
// content's text made only when read (the feed source reads it for the entries it stores). A
// second RSS row makes every entry's text too, the cost of a feed whose every entry is new.
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseFeed } from "../../src/sources/feeds/parse/index.ts";
import { type BigFeed, bigFeed } from "../fixtures/big-feed.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { type Distribution, distribution, ms } from "../lib/stats.ts";

const GOAL_MS = 250;
const MB = 1024 * 1024;

type Format = keyof Omit<BigFeed, "posts">;

const URLS: Record<Format, string> = {
  rss: "https://example.com/feed.xml",
  atom: "https://example.com/atom.xml",
  json: "https://example.com/feed.json",
  html: "https://example.com/",
};

/** Wall time, and CPU time (user + system: on a shared machine, the part not spent waiting for a core). */
function time(
  runs: number,
  body: Uint8Array,
  url: string,
  withText: boolean,
): { wall: Distribution; cpu: Distribution } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs + 2; run++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const feed = parseFeed({ body, url, contentType: undefined });
    if (withText) for (const entry of feed.entries) void entry.contentText;
    const used = process.cpuUsage(cpuStarted);
    // The first two runs warm the JIT up and are not counted.
    if (run >= 2) {
      wall.push(performance.now() - started);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  return { wall: distribution(wall), cpu: distribution(cpu) };
}

export async function feedParse(context: BenchContext): Promise<FigureSection> {
  const runs = context.quick ? 5 : 21;
  const feed = bigFeed(MB);
  const bodies = Object.fromEntries(
    (Object.keys(URLS) as Format[]).map((format) => [format, new TextEncoder().encode(feed[format])]),
  ) as Record<Format, Uint8Array>;
  const rows: FigureRow[] = [];
  const data: Record<string, unknown> = { posts: feed.posts, runs };
  const row = (figure: string, format: Format, withText: boolean, goal: boolean) => {
    context.log(`feed-parse: ${figure}`);
    const { wall: measured, cpu } = time(runs, bodies[format], URLS[format], withText);
    const size = `${(bodies[format].length / MB).toFixed(2)} MB, ${feed.posts} entries`;
    data[figure] = { bytes: bodies[format].length, ...measured, cpu };
    rows.push({
      figure,
      engine: "-",
      measured: ms(measured.median),
      value: measured.median,
      unit: "ms",
      goal: goal ? `≤ ${GOAL_MS} ms` : "-",
      verdict: goal ? (measured.median <= GOAL_MS ? "PASS" : "MISS") : "INFO",
      note: `${size}; p99 ${ms(measured.p99)}; CPU time median ${ms(cpu.median)}${
        goal && measured.median > GOAL_MS && cpu.median <= GOAL_MS
          ? `: the parse's own work is within the goal, the rest of the wall time waited for a core (load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores); measure again on a quiet machine`
          : ""
      }`,
    });
  };
  row("1 MB feed parsed and normalised (RSS 2.0): median", "rss", false, true);
  row("1 MB feed, RSS 2.0, every entry's text made too: median", "rss", true, false);
  row("1 MB feed, Atom: median", "atom", false, false);
  row("1 MB feed, JSON Feed: median", "json", false, false);
  row("1 MB feed, h-feed page (microformats-parser): median", "html", false, false);
  await Promise.resolve();
  return {
    id: "feed-parse",
    title: "Feed parsing",
    method: `parseFeed on a generated feed of about 1 MB (${feed.posts} full articles with links, images, lists and entities; bench/fixtures/big-feed.ts), from bytes to normalised entries; median of ${runs} runs after 2 warm-up runs, in this process.`,
    rows,
    details: [],
    data,
  };
}
