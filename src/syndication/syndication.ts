// The syndication core as the adapters (HTTP routes, the command line, webhooks, the admin page,
// the scheduler) see it: one instance over one database, with a face for each kind of caller. It
// knows nothing of HTTP.
//   runs     start and follow runs (batch, single post, follow-ups); shutdown waits for them
//   due      the scheduler's questions (what is due when) and its chores between runs
//   reads    what the pages and /health show; changes nothing
//   copies   the user's say over each copy: preview, own words, skip, confirm
import { CopyEditing } from "./copies/copy-editing.ts";
import { DueWork } from "./due/due-work.ts";
import { type SyndicationDependencies, SyndicationParts } from "./parts.ts";
import { PageReads } from "./reads/page-reads.ts";
import { Runs } from "./runs/runs.ts";

export type { TargetPreview } from "./copies/copy-editing.ts";
export type { OwnText } from "./copies/own-texts.ts";
export type { LiveCheck } from "./due/live-checks.ts";
export {
  CopyNotRemovableError,
  SyndicationInProgressError,
  SyndicationShuttingDownError,
  TargetNotConfirmableError,
  TargetNotSkippableError,
} from "./errors.ts";
export type { SyndicationDependencies, SyndicationOptions } from "./parts.ts";
export type { BatchRun } from "./runs/batch.ts";
export type { LeaseStatus } from "./runs/lease.ts";
export type { TargetStatus } from "./runs/target-checks.ts";
export type { TargetPause } from "./runs/target-pauses.ts";

/**
 * @example
 * const syndication = new Syndication({ database, posts, syndicators: () => targets, publication, logger });
 * const run = await syndication.runs.startBatch("manual");
 * await run.done;
 * const runs = await syndication.reads.recentRuns();
 */
export class Syndication {
  /** This instance, as recorded on the lease, runs and claims. */
  readonly holder: string;
  readonly runs: Runs;
  readonly due: DueWork;
  readonly reads: PageReads;
  readonly copies: CopyEditing;

  constructor(deps: SyndicationDependencies) {
    const parts = new SyndicationParts(deps);
    this.holder = parts.holder;
    this.runs = new Runs(parts);
    this.due = new DueWork(parts);
    this.reads = new PageReads(parts);
    this.copies = new CopyEditing(parts);
  }
}
