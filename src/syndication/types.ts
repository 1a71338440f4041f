// The syndication core's vocabulary. Nothing here knows HTTP: routes, the command line and the
// webhooks are adapters that start runs and format what they emit.
import type { ThreadPost } from "../contract/thread-progress.ts";
import type { SentCopy } from "./copies/sent-copy.ts";

/** `schedule`: started by the scheduler because something was due, without anyone asking. */
/** What started a run; "retry": the page's Retry everything (a batch that retries what failed). */
export type Trigger = "manual" | "batch" | "webhook" | "cli" | "schedule" | "retry";

/** A (post, target) row of the ledger. The ledger, not the post, is the truth about what was sent. */
/** `skipped`: the user chose not to send the post there ("Skip for this post"). */
export type TargetState = "pending" | "sending" | "syndicated" | "failed" | "unknown" | "skipped";

/** What a ledger row does to a copy: send it, change it to follow an edit, or delete it. */
export type Operation = "create" | "update" | "delete";
/** A follow-up of a copy (decision 0028): an update or a delete, beside the create that sent it. */
export type FollowUp = Exclude<Operation, "create">;

/**
 * `done`: the copy was changed or deleted. `cancelled`: there was nothing to do any more (the post
 * was deleted before its copy was sent, restored before the delete, or edited back). `kept`: the
 * target keeps copies as they were sent (no edits on Bluesky, an archive's capture).
 */
export type OperationState = "pending" | "sending" | "done" | "failed" | "unknown" | "cancelled" | "kept";

/** A follow-up row of the ledger: the same state machine as a send. */
export interface OperationEntry {
  postId: string;
  targetUid: string;
  operation: FollowUp;
  state: OperationState;
  /** The copy concerned. */
  url: string | null;
  /** update: the digest of what the copy is to become. */
  digest: string | null;
  /** update: carried out by deleting the copy and sending it anew (decision 0062), as the user asked. */
  replace: boolean;
  attempts: number;
  lastError: string | null;
  permanent: boolean;
  lastStatus: number | null;
  idempotencyKey: string;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

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
  /** What the copy holds (a digest of the text and photos sent), to tell whether an edit changes it. */
  digest: string | null;
  /**
   * When the user removed the copy while keeping the post ("Undo a copy", decision 0054); null when
   * they did not. Read by the page's reads (entriesForPost, summaryForPosts) only.
   */
  removedAt?: Date | null;
  /** The copy's posts, when it was sent as a thread (decision 0062); null for one post. */
  thread: ThreadPost[] | null;
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
  operation: Operation;
  /** What this attempt sent (a send or an edit), recorded before sending; null when not known. */
  sent: SentCopy | null;
}

export interface TargetResult {
  uid: string;
  name: string;
  status: "syndicated" | "already_syndicated" | "failed" | "skipped";
  url?: string;
  error?: string;
  /** The post names a target that is not configured (any more): skipped, and not waited for. */
  unconfigured?: true;
  /** A follow-up of the copy (its status says how it went: `syndicated` is done), not a send. */
  operation?: FollowUp;
}

export type PostResultStatus = "syndicated" | "partial" | "failed" | "unchanged";

/** What a run says about one post: the JSON result of the endpoint (decision 0009). */
export interface PostResult {
  url: string;
  status: PostResultStatus;
  syndication: string[];
  targets: TargetResult[];
  /** The copies' follow-ups (updates, deletes) after the post changed, not sends. */
  followUp?: true;
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
  /**
   * Posts whose copies were updated or deleted to follow them (decision 0028), counted apart from the
   * sends; absent when there were none. Follow-ups that failed or wait count as failed, partial
   * or skipped, like sends.
   */
  followed?: number;
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
