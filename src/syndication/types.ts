// The syndication core's vocabulary. Nothing here knows HTTP: routes, the command line and the
// webhooks are adapters that start runs and format what they emit.

/** `schedule`: started by the scheduler because something was due, without anyone asking. */
export type Trigger = "manual" | "batch" | "webhook" | "cli" | "schedule";

/** A (post, target) row of the ledger. The ledger, not the post, is the truth about what was sent. */
/** `skipped`: the user chose not to send the post there ("Skip for this post"). */
export type TargetState = "pending" | "sending" | "syndicated" | "failed" | "unknown" | "skipped";

export interface LedgerEntry {
  postId: string;
  targetUid: string;
  state: TargetState;
  url: string | null;
  attempts: number;
  lastError: string | null;
  /** Permanent refusals (401, 403, 422) are not retried automatically. */
  permanent: boolean;
  idempotencyKey: string;
  nextAttemptAt: Date | null;
  /** The copy's URL has been written to the post (after that, the user's edits of the post win). */
  writtenBack: boolean;
  /** A syndicator's note of progress from an unfinished attempt (e.g. a capture job id). */
  checkpoint: string | null;
  /** The HTTP status of the last failure, when the target answered (429: rate limited). */
  lastStatus: number | null;
  /** Who holds the row while it is `sending` (instance id and a claim nonce); kept afterwards. */
  claimedBy: string | null;
  claimedAt: Date | null;
  updatedAt: Date;
  createdAt: Date;
}

export interface Attempt {
  id: string;
  postId: string;
  targetUid: string;
  runId: string | null;
  trigger: Trigger;
  startedAt: Date;
  finishedAt: Date | null;
  outcome: "syndicated" | "failed" | "sending" | "unknown";
  url: string | null;
  error: string | null;
  /** The user's own words, when this attempt sent them instead of the template's text. */
  ownText: string | null;
}

export interface TargetResult {
  uid: string;
  name: string;
  status: "syndicated" | "already_syndicated" | "failed" | "skipped";
  url?: string;
  error?: string;
  /** The post names a target that is not configured (any more): skipped, and not waited for. */
  unconfigured?: true;
}

export type PostResultStatus = "syndicated" | "partial" | "failed" | "unchanged";

/** What a run says about one post: the JSON result of the endpoint (issue 4). */
export interface PostResult {
  url: string;
  status: PostResultStatus;
  syndication: string[];
  targets: TargetResult[];
}

export interface RunSummary {
  posts: number;
  syndicated: number;
  partial: number;
  failed: number;
  /**
   * Posts where nothing was sent because every target still lacking them waits for its next try
   * or was refused: not a success, so never counted as one.
   */
  skipped: number;
}

/** `abandoned`: its process died, lost the lease, or stopped on shutdown before the end. */
export type RunStatus = "running" | "finished" | "abandoned";

export interface RunRecord {
  id: string;
  kind: "batch" | "single";
  trigger: Trigger;
  startedAt: Date;
  finishedAt: Date | null;
  status: RunStatus;
  /** The instance that ran it. */
  holder: string | null;
  summary: RunSummary;
}

/** The lease on the batch run, as seen by anyone who asks whether a run is in progress. */
export interface RunInProgress {
  runId: string;
  trigger: Trigger;
  /** The instance holding the lease. */
  holder: string;
  since: Date;
  expiresAt: Date;
}

/** What the core tells listeners in this process (the admin page), in the order it happens. */
export type SyndicationEvent =
  | { type: "run-started"; runId: string; kind: "batch" | "single"; trigger: Trigger; startedAt: Date }
  | { type: "result"; runId: string; kind: "batch" | "single"; result: PostResult }
  | { type: "lease-lost"; runId: string }
  | {
      type: "run-finished";
      runId: string;
      kind: "batch" | "single";
      status: Exclude<RunStatus, "running">;
      summary: RunSummary;
    };
