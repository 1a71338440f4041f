// How far the batch in progress has got, counted in this process as its results come: the run's
// record is written only when it ends, so without this a page opened mid-run (or left and opened
// again) could say only that a run is in progress, never how far it is. A batch run by another
// process (sharing a PostgreSQL database) has no count here, and the page says just that it runs.
import { countInto, emptySummary } from "../../syndication/runs/post-result.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import type { RunSummary, SyndicationEvent } from "../../syndication/types.ts";

const progressBySyndication = new WeakMap<Syndication, Map<string, RunSummary>>();

function follow(runs: Map<string, RunSummary>, event: SyndicationEvent): void {
  if (event.type === "run-started" && event.kind === "batch") runs.set(event.runId, emptySummary());
  else if (event.type === "result" && event.kind === "batch") {
    const summary = runs.get(event.runId);
    if (summary) countInto(summary, event.result);
  } else if (event.type === "run-finished" || event.type === "lease-lost") runs.delete(event.runId);
}

/** Starts counting the batches of `syndication`; before its first run, so that none is counted short. */
export function trackBatchProgress(syndication: Syndication): () => void {
  const runs = new Map<string, RunSummary>();
  progressBySyndication.set(syndication, runs);
  return syndication.runs.onEvent((event) => follow(runs, event));
}

/** What the batch `runId` has done so far, when this process runs it and counts it. */
export function batchProgress(syndication: Syndication, runId: string): RunSummary | undefined {
  const summary = progressBySyndication.get(syndication)?.get(runId);
  return summary ? { ...summary } : undefined;
}
