// What a claim asks for and what it hands out: the right to send one (post, target), or to carry out
// one follow-up, held until its outcome is recorded; and how failures back off.
import type { BackoffRule } from "../../net/backoff.ts";
import type { SentCopy } from "../copies/sent-copy.ts";
import type { FollowUp, LedgerEntry, Operation, OperationEntry, Trigger } from "../types.ts";

export interface ClaimRequest {
  postId: string;
  targetUid: string;
  /** Used only when the row is created; an existing row keeps its own key. */
  idempotencyKey: string;
  /** The instance claiming (a nonce is added so that each claim is told apart). */
  holder: string;
  runId: string | null;
  trigger: Trigger;
  /**
   * A user's retry: also claims rows in backoff, refused permanently, or of unknown outcome.
   * Never rows being sent or already syndicated.
   */
  force?: boolean;
}

/** One target of a post's claim, and what its attempt will send (decision 0081). */
export interface ClaimedTarget {
  targetUid: string;
  idempotencyKey: string;
  /**
   * What the attempt is about to send (its preview, decision 0054), written by the claim's own
   * attempt row, so that it is committed before the request without a statement of its own.
   */
  sent?: SentCopy;
  /** The user's own words the attempt sends (OwnTexts), noted the same way. */
  ownText?: string;
}

/**
 * The claim of several targets of one post at once, in one statement (decision 0063): each target
 * is taken or refused as a ClaimRequest's would be.
 */
export interface PostClaimRequest extends Omit<ClaimRequest, "targetUid" | "idempotencyKey"> {
  targets: readonly ClaimedTarget[];
  /**
   * The post as a batch's page read it (as-listed.ts): the claim takes nothing unless it is still so
   * (decision 0080). Absent: the post was read just before, and only its deletion is checked.
   */
  asListed?: string;
}

/**
 * A post's claim made ready, not yet run (Ledger.prepareClaim): its tokens made beforehand, so that
 * what it took can be read back by them (decision 0075).
 */
export interface PreparedClaim {
  request: PostClaimRequest;
  /** The uids claimed, in the order their rows are taken. */
  uids: readonly string[];
  /** The claimed_by value of each uid. */
  tokens: ReadonlyMap<string, string>;
  /** The claim's parameters, in claimSql's order. */
  params: readonly unknown[];
}

/** The right to send one (post, target), held until recordSuccess or recordFailure. */
export interface Claim {
  entry: LedgerEntry;
  /** The attempts-history row of this send. */
  attemptId: string;
  /** The claimed_by value; the outcome is recorded only while the row still carries it. */
  token: string;
  trigger: Trigger;
}

/** The right to carry out one follow-up (update or delete of a copy), like a Claim for a send. */
export interface OperationClaim {
  entry: OperationEntry;
  attemptId: string;
  token: string;
  trigger: Trigger;
}

export interface OperationClaimRequest {
  postId: string;
  targetUid: string;
  operation: FollowUp;
  holder: string;
  runId: string | null;
  trigger: Trigger;
  /** A user's retry: also claims rows refused permanently or of unknown outcome. */
  force?: boolean;
}

export interface StaleResolution {
  postId: string;
  targetUid: string;
  operation: Operation;
  /** pending: will be sent again with the same key; unknown: waits for the user. */
  state: "pending" | "unknown";
}

/** How failed sends back off: attempt n waits min(2^n × baseMs, maxMs) (the `retry` options). */
export type Backoff = BackoffRule;

export const DEFAULT_BACKOFF: Backoff = { baseMs: 60_000, maxMs: 86_400_000 };
