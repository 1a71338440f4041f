// The WebSub subscriber (W3C WebSub, section 5): asks a feed's hub to push it, keeps the lease
// renewed, and unsubscribes when the feed goes away. The hub's answers come back through the
// callback handler (callback.ts) that the feed source mounts on a public route.
import type { OutgoingFetchPolicy } from "../../../../net/safe-fetch.ts";
import type { WebSubSubscription, WebSubSubscriptionStore } from "./subscription-store.ts";

export interface WebSubSubscriberOptions {
  store: WebSubSubscriptionStore;
  /** Hub URLs come from feeds: they are reached only under the outgoing-fetch rules. */
  policy: OutgoingFetchPolicy;
  /** The public callback URL for a subscription id, e.g. `${site}/syndicate/websub/${id}`. */
  callbackUrl: (subscriptionId: string) => string;
  /** Milliseconds since the epoch (Date.now by default). */
  now?: () => number;
  /** The lease asked for (the hub decides; default 10 days). */
  leaseSeconds?: number;
  timeoutMs?: number;
  userAgent?: string;
}

/** What subscribe/renew did: the subscription as stored afterwards. */
export interface WebSubRequestOutcome {
  subscription: WebSubSubscription;
  /** True when the hub accepted the request (2xx); verification follows by GET. */
  accepted: boolean;
  /** The hub's status, or the reason it could not be reached. */
  detail: string;
}

export class WebSubSubscriber {
  constructor(readonly options: WebSubSubscriberOptions) {}

  /**
   * Subscribes `feedKey` to `topic` at `hub` (a new secret, a new id), unless the feed already has a
   * pending or active subscription to the same hub and topic.
   */
  async subscribe(feedKey: string, hub: string, topic: string): Promise<WebSubRequestOutcome> {
    void feedKey;
    void hub;
    void topic;
    throw new Error("not written yet");
  }

  /** Sends the renewals that are due (call it from the scheduler, e.g. once a minute). */
  async renewDue(limit = 20): Promise<WebSubRequestOutcome[]> {
    void limit;
    throw new Error("not written yet");
  }

  /** Asks the hub to stop (the feed was removed or is gone). */
  async unsubscribe(feedKey: string): Promise<WebSubRequestOutcome | undefined> {
    void feedKey;
    throw new Error("not written yet");
  }
}
