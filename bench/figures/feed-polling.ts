// Figure (decision 0037): 100 unchanged feeds polled, each answering 304 to the ETag it gave. The feeds are
// served from this process over real HTTP on 127.0.0.1 (a 40 KB Atom feed each, as a blog's); the
// polling runs in a child process with the real fetchFeed, so that its memory is measured alone.
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { distribution, megabytes, ms } from "../lib/stats.ts";
import type { FeedPollingResult } from "./feed-polling-child.ts";

const CHILD = join(PACKAGE_ROOT, "bench", "figures", "feed-polling-child.ts");
const WALL_GOAL_MS = 5000;
const RSS_GOAL_BYTES = 20 * 1024 * 1024;

function atomFeed(index: number): string {
  const entries = Array.from(
    { length: 40 },
    (_, entry) => `<entry><id>urn:feed-${index}:${entry}</id><title>Post ${entry}</title>
<updated>2026-11-${String((entry % 28) + 1).padStart(2, "0")}T10:00:00Z</updated>
<content type="html">${"&lt;p&gt;Some words of a post, as a blog writes them. ".repeat(18)}</content></entry>`,
  ).join("\n");
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Feed ${index}</title><id>urn:feed-${index}</id>
<updated>2026-11-25T10:00:00Z</updated>${entries}</feed>`;
}

export async function feedPolling(context: BenchContext): Promise<FigureSection> {
  const feeds = 100;
  const rounds = context.quick ? 2 : 5;
  const bodies = Array.from({ length: feeds }, (_, index) => Buffer.from(atomFeed(index)));
  const oversized = Buffer.alloc(10 * 1024 * 1024, " ");
  let answered200 = 0;
  let answered304 = 0;
  const server = createServer((request, response) => {
    if (request.url === "/oversized.xml") {
      response.writeHead(200, { "content-type": "application/rss+xml", "content-length": oversized.length });
      response.end(oversized);
      return;
    }
    const index = Number(/^\/feed-(\d+)\.xml$/.exec(request.url ?? "")?.[1]);
    const body = bodies[index];
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    const etag = `"feed-${index}-v1"`;
    if (request.headers["if-none-match"] === etag) {
      answered304++;
      response.writeHead(304, { etag }).end();
      return;
    }
    answered200++;
    response.writeHead(200, { "content-type": "application/atom+xml", etag, "content-length": body.length });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  context.log(`feed polling: ${feeds} feeds × ${rounds} rounds, sequential and 10 at a time`);
  let result: FeedPollingResult;
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--expose-gc", "--import", "tsx", CHILD, base, String(feeds), String(rounds)],
      { cwd: PACKAGE_ROOT, maxBuffer: 1024 * 1024, timeout: 10 * 60_000 },
    );
    result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as FeedPollingResult;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  const sequential = distribution(result.sequentialMs);
  const concurrent = distribution(result.concurrentMs);
  const peak = Math.max(result.sampledPeakRss, result.vmHwmDuring ?? 0);
  const extra = peak - result.rssBefore;
  const cpu = distribution(result.sequentialCpuMs);
  const big = result.oversized;
  const bigPeak = Math.max(big.sampledPeakRss, big.vmHwmDuring ?? 0);
  const bigExtra = bigPeak - big.rssBefore;
  const rows: FigureRow[] = [
    {
      figure: `${feeds} unchanged feeds polled (304), one after another`,
      engine: "-",
      measured: ms(sequential.median),
      value: sequential.median,
      unit: "ms",
      goal: "≤ 5 s",
      verdict: sequential.median <= WALL_GOAL_MS && result.notNotModified === 0 ? "PASS" : "MISS",
      note: `median of ${rounds} rounds (max ${ms(sequential.max)}); CPU time of the poller ${ms(cpu.median)} (median); ${answered304} answers 304, ${result.notNotModified} not`,
    },
    {
      figure: `${feeds} unchanged feeds polled (304), 10 at a time`,
      engine: "-",
      measured: ms(concurrent.median),
      value: concurrent.median,
      unit: "ms",
      goal: "-",
      verdict: "INFO",
      note: `median of ${rounds} rounds`,
    },
    {
      figure: `Extra RSS while polling ${feeds} unchanged feeds`,
      engine: "-",
      measured: megabytes(extra),
      value: extra,
      unit: "bytes",
      goal: "≤ 20 MB",
      verdict: extra <= RSS_GOAL_BYTES ? "PASS" : "MISS",
      note: `peak ${megabytes(peak)} (${result.vmHwmDuring === null ? "sampled every 5 ms" : "VmHWM reset before the rounds, and sampled"}) over ${megabytes(result.rssBefore)} before them`,
    },
    {
      figure: `Extra RSS while a 10 MB feed is refused (${big.fetches} fetches)`,
      engine: "-",
      measured: megabytes(bigExtra),
      value: bigExtra,
      unit: "bytes",
      goal: "flat: ≤ 20 MB",
      verdict: bigExtra <= RSS_GOAL_BYTES && big.refused === big.fetches ? "PASS" : "MISS",
      note: `${big.refused} of ${big.fetches} refused as too large (cap 5 MB); peak ${megabytes(bigPeak)} over ${megabytes(big.rssBefore)} before them`,
    },
  ];
  return {
    id: "feed-polling",
    title: "Polling unchanged feeds (decision 0037)",
    method:
      "A child process polls 100 feeds served over HTTP on 127.0.0.1 with the real fetchFeed, after one uncached fetch of each (not counted); each timed poll sends the feed's ETag and gets 304. Rounds alternate one-after-another and 10-at-a-time. Extra RSS: the peak during the timed rounds less the RSS after a full GC before them. Then the same child fetches a 10 MB feed 5 times (refused at 5 MB while it streams) and its extra RSS is measured the same way.",
    rows,
    details: [],
    data: { ...result, answered200, answered304 },
  };
}
