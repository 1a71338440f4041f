// Whether a batch run is in progress, in any process sharing the database (a webhook, the command
// line, another tab), and, when the page saw one that has since ended, how it went.
import type { Syndication } from "../../syndication/syndication.ts";
import type { RunRecord, RunSummary, Trigger } from "../../syndication/types.ts";
import { batchProgress } from "./batch-progress.ts";

export interface RunStatusView {
  inProgress: {
    runId: string;
    trigger: Trigger;
    since: Date;
    holder: string;
    /** What it has done so far, when this process runs it (see batch-progress.ts). */
    done?: RunSummary;
  } | null;
  /** The run the page last saw in progress, now ended (its record, when still among the recent ones). */
  ended: { runId: string; record: RunRecord | null } | null;
}

/** How far back to look for the ended run; runs are few, a page is polled every few seconds. */
const RECENT_RUNS = 50;

export async function runStatusView(syndication: Syndication, seenRunId?: string): Promise<RunStatusView> {
  const current = await syndication.reads.inProgress();
  const done = current ? batchProgress(syndication, current.runId) : undefined;
  const inProgress = current
    ? {
        runId: current.runId,
        trigger: current.trigger,
        since: current.since,
        holder: current.holder,
        ...(done ? { done } : {}),
      }
    : null;
  if (!seenRunId || inProgress?.runId === seenRunId) return { inProgress, ended: null };
  const runs = await syndication.reads.recentRuns(RECENT_RUNS);
  const record = runs.find((run) => run.id === seenRunId) ?? null;
  return { inProgress, ended: { runId: seenRunId, record } };
}
