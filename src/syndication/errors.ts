// Errors the syndication core throws for its adapters to turn into answers. PostNotFoundError (no
// post at that URL) comes from the post service: src/contract/posts.ts.
import type { RunInProgress } from "./types.ts";

/** A batch was asked for while another holds the lease (HTTP 409 with Retry-After). */
export class SyndicationInProgressError extends Error {
  constructor(
    readonly inProgress: RunInProgress,
    /** When the current lease lapses unless renewed; a fair time to ask again. */
    readonly retryAfterSeconds: number,
  ) {
    super(
      `Syndication is already in progress (run ${inProgress.runId}, started ${inProgress.since.toISOString()} by ${inProgress.trigger}); try again in ${retryAfterSeconds} s`,
    );
    this.name = "SyndicationInProgressError";
  }
}

/** The server is stopping: no new batch is started (HTTP 503). */
export class SyndicationShuttingDownError extends Error {
  constructor() {
    super("The server is shutting down, so no syndication run can start now; try again in a moment");
    this.name = "SyndicationShuttingDownError";
  }
}

/** A user's confirmation names a target the ledger has no finished record of for the post (HTTP 409). */
export class TargetNotConfirmableError extends Error {
  constructor(
    readonly postUrl: string,
    readonly targetUid: string,
  ) {
    super(
      `There is no syndication record of ${targetUid} for ${postUrl} that can be confirmed: it was never sent, or it is being sent right now`,
    );
    this.name = "TargetNotConfirmableError";
  }
}

/** "Skip for this post" names a target the post does not name, or one that has it or is being sent it (HTTP 409). */
export class TargetNotSkippableError extends Error {
  constructor(
    readonly postUrl: string,
    readonly targetUid: string,
  ) {
    super(
      `${targetUid} cannot be skipped for ${postUrl}: the post does not name it, it has the post, or it is being sent right now`,
    );
    this.name = "TargetNotSkippableError";
  }
}

/** "Undo a copy" names a target that holds no copy of the post, or cannot delete its copies (HTTP 409). */
export class CopyNotRemovableError extends Error {
  constructor(
    readonly postUrl: string,
    readonly targetUid: string,
  ) {
    super(`${targetUid} holds no copy of ${postUrl} that can be removed, or cannot delete its copies`);
    this.name = "CopyNotRemovableError";
  }
}
