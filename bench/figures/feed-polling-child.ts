// The feed-polling figure's own process: polls N unchanged feeds (each answering 304 to the ETag it
// gave) with the real fetchFeed, and prints its wall times and memory as one JSON line, so that the
// memory measured is the fetcher's alone (the feed server runs in the bench's process).
// Run by feed-polling.ts as `node --expose-gc --import tsx bench/figures/feed-polling-child.ts <base> <feeds> <rounds>`.
import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { type FeedFetchState, fetchFeed } from "../../src/sources/feeds/http/fetch-feed.ts";

const argsSchema = z.tuple([z.url(), z.coerce.number().int().positive(), z.coerce.number().int().positive()]);

export interface FeedPollingResult {
  feeds: number;
  /** Wall time of each round of polling every feed one after another, in ms. */
  sequentialMs: number[];
  /** Wall time of each round with 10 fetches at a time, in ms. */
  concurrentMs: number[];
  /** Answers of the timed rounds that were not "not-modified" (should be 0). */
  notNotModified: number;
  /** RSS after the first (uncached) fetch of every feed and a full GC, before the timed rounds. */
  rssBefore: number;
  /** The highest RSS sampled every 5 ms during the timed rounds. */
  sampledPeakRss: number;
  /** VmHWM after resetting it before the timed rounds (/proc/self/clear_refs); null where unavailable. */
  vmHwmDuring: number | null;
  /** CPU time (user + system) of each one-after-another round, in ms: what waiting for a busy CPU leaves out. */
  sequentialCpuMs: number[];
  /** A 10 MB feed fetched `oversized.fetches` times: each must be refused (too-large). */
  oversized: {
    fetches: number;
    refused: number;
    /** RSS after a full GC before them. */
    rssBefore: number;
    /** The highest RSS sampled every 5 ms, and VmHWM reset before them (null where unavailable). */
    sampledPeakRss: number;
    vmHwmDuring: number | null;
  };
}

function vmHwm(): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Resets the kernel's peak-RSS mark, so that VmHWM afterwards is the peak of what follows. */
function resetPeak(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const [base, feeds, rounds] = argsSchema.parse(process.argv.slice(2));
  const options = { policy: { allowPrivate: true } };
  const states: FeedFetchState[] = [];
  for (let index = 0; index < feeds; index++) {
    const url = `${base}/feed-${index}.xml`;
    const first = await fetchFeed({ url }, options);
    if (first.kind !== "fetched") throw new Error(`${url}: ${first.kind}`);
    states.push({ url, ...first.validators });
  }
  let notNotModified = 0;
  const poll = async (state: FeedFetchState) => {
    const result = await fetchFeed(state, options);
    if (result.kind !== "not-modified") notNotModified++;
  };

  (globalThis as { gc?: () => void }).gc?.();
  const rssBefore = process.memoryUsage.rss();
  const peakReset = resetPeak();
  let sampledPeakRss = rssBefore;
  const sampler = setInterval(() => {
    sampledPeakRss = Math.max(sampledPeakRss, process.memoryUsage.rss());
  }, 5);

  const sequentialMs: number[] = [];
  const sequentialCpuMs: number[] = [];
  const concurrentMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let started = performance.now();
    const cpu = process.cpuUsage();
    for (const state of states) await poll(state);
    sequentialMs.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    sequentialCpuMs.push((used.user + used.system) / 1000);

    started = performance.now();
    const queue = [...states];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let state = queue.shift(); state; state = queue.shift()) await poll(state);
      }),
    );
    concurrentMs.push(performance.now() - started);
  }
  clearInterval(sampler);
  sampledPeakRss = Math.max(sampledPeakRss, process.memoryUsage.rss());
  const vmHwmDuring = peakReset ? vmHwm() : null;

  // A feed of 10 MB, refused at 5 MB while it streams: the memory should stay flat.
  const oversizedFetches = 5;
  let refused = 0;
  (globalThis as { gc?: () => void }).gc?.();
  const oversizedBefore = process.memoryUsage.rss();
  const oversizedReset = resetPeak();
  let oversizedPeak = oversizedBefore;
  const oversizedSampler = setInterval(() => {
    oversizedPeak = Math.max(oversizedPeak, process.memoryUsage.rss());
  }, 5);
  for (let fetch = 0; fetch < oversizedFetches; fetch++) {
    const result = await fetchFeed({ url: `${base}/oversized.xml` }, options);
    if (result.kind === "refused" && result.reason === "too-large") refused++;
  }
  clearInterval(oversizedSampler);
  oversizedPeak = Math.max(oversizedPeak, process.memoryUsage.rss());

  const result: FeedPollingResult = {
    feeds,
    sequentialMs,
    concurrentMs,
    notNotModified,
    rssBefore,
    sampledPeakRss,
    vmHwmDuring,
    sequentialCpuMs,
    oversized: {
      fetches: oversizedFetches,
      refused,
      rssBefore: oversizedBefore,
      sampledPeakRss: oversizedPeak,
      vmHwmDuring: oversizedReset ? vmHwm() : null,
    },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
