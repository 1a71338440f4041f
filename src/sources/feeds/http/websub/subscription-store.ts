// What the WebSub subscriber remembers about each subscription, behind a port: the SQL store
// (sql-subscription-store.ts) in the server, the same store on PGlite in the tests.

/**
 * - pending: a subscribe request was accepted by the hub; its verification GET has not come yet.
 * - active: verified; content distributions are accepted.
 * - renewing: active, and a renewal was sent whose verification GET has not come yet.
 * - denied: the hub refused (its "denied" GET, or an error answer to the request).
 * - unsubscribing: we asked the hub to end it; its verification GET has not come yet.
 * - ended: unsubscribed (verified), or given up.
 */
export type WebSubState = "pending" | "active" | "renewing" | "denied" | "unsubscribing" | "ended";

export interface WebSubSubscription {
  /** Random and unguessable: the last segment of the callback URL. */
  id: string;
  /** The feed source's own key for the feed this subscription serves (opaque here). */
  feedKey: string;
  /** The hub's URL (from the feed or its Link header). */
  hub: string;
  /** The topic: the feed's self URL. */
  topic: string;
  /**
   * Our per-subscription secret for X-Hub-Signature. Never logged, never shown. Null for a hub
   * reached over plain http, where none is sent (WebSub 5.1): its deliveries are then only a sign
   * to read the feed, whose own copy is what is used.
   */
  secret: string | null;
  state: WebSubState;
  /** When the last subscribe or unsubscribe request was sent (ms since the epoch). */
  requestedAt: number;
  /** The lease the hub granted, in seconds (from its verification GET). */
  leaseSeconds: number | null;
  /** When the hub's grant ends (ms since the epoch). */
  expiresAt: number | null;
  /** When to send the renewal (before expiresAt). */
  renewAt: number | null;
  /** The hub's reason for a denial, or why a request failed. */
  lastError: string | null;
}

export interface WebSubSubscriptionStore {
  /** Adds a new subscription, or replaces the one of the same id. */
  save(subscription: WebSubSubscription): Promise<void>;
  get(id: string): Promise<WebSubSubscription | undefined>;
  /** The feed's current subscription (the newest one not ended), if any. */
  forFeed(feedKey: string): Promise<WebSubSubscription | undefined>;
  /** Active subscriptions whose renewAt has come, soonest first. */
  dueForRenewal(now: number, limit: number): Promise<WebSubSubscription[]>;
  /** The earliest renewAt of the active subscriptions, or null when none is active. */
  nextRenewalAt(): Promise<number | null>;
  /** The subscriptions not ended whose feed is none of `feedKeys` (feeds no longer configured). */
  ofOtherFeeds(feedKeys: readonly string[]): Promise<WebSubSubscription[]>;
}
