// The port through which the core tells the user of a failure that needs them, without their
// opening the page (decision 0050): e-mail and a webhook out implement it (src/notifications). The
// core calls it at each such failure and at each success; the implementation keeps the streaks,
// so that a failing streak is one message and its end one "recovered" message.

/** The failures that need the user. */
export type NoticeKind = "refused" | "retries_exhausted" | "unknown_outcome" | "paused_long" | "expiring";

export interface FailureNotice {
  kind: NoticeKind;
  targetUid: string;
  targetName: string;
  /** What the service said (a token is never in it: see notifier.ts). */
  error: string;
  /** The post concerned, when one is. */
  postUrl?: string;
  /** Where the target's credentials are set, for a refusal. */
  setting?: string;
  /**
   * The target is an account connected from the Accounts page (SyndicatorPlugin.holdWhileRefused):
   * reconnecting it there is the whole fix, and its posts wait and go out by themselves then.
   */
  reconnect?: boolean;
  /** "expiring": when the credential ends unless it is renewed. */
  expiresAt?: Date;
}

export interface FailureNotices {
  /** A failure that needs the user; never throws, never waits for the delivery. */
  failure(notice: FailureNotice): void;
  /** The target took a post or passed a check: its failing streaks are over. Never throws. */
  recovered(targetUid: string, targetName: string): void;
}

/** The kind of notice a failed send is, if it needs the user. */
export function noticeKindOf(failure: {
  status?: number;
  permanent?: boolean;
  unknown?: boolean;
}): NoticeKind | undefined {
  if (failure.status === 401 || failure.status === 403) return "refused";
  if (failure.unknown) return "unknown_outcome";
  if (failure.permanent) return "retries_exhausted";
  return undefined;
}
