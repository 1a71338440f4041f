// The WebSub subscriber (W3C WebSub, section 5): asks a feed's hub to push it, keeps the lease
// renewed, and unsubscribes when the feed goes away. The hub's answers come back through the
// callback handler (callback.ts) that the feed source mounts on a public route.
import { randomBytes } from "node:crypto";
import { type OutgoingFetchPolicy, safeFetch } from "../../../../net/safe-fetch.ts";
import { feedUserAgent } from "../user-agent.ts";
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
  /** For one request to the hub (default 15 s). */
  timeoutMs?: number;
  userAgent?: string;
}

/** What subscribe/renew/unsubscribe did: the subscription as stored afterwards. */
export interface WebSubRequestOutcome {
  subscription: WebSubSubscription;
  /** True when the hub accepted the request (2xx), or nothing needed sending; verification follows by GET. */
  accepted: boolean;
  /** The hub's status, or why nothing was sent, or why the hub could not be reached. */
  detail: string;
}

export const DEFAULT_LEASE_SECONDS = 10 * 86_400;
/** A request the hub accepted but never verified is sent again after this long. */
export const PENDING_RETRY_MS = 3600_000;
/** A refused or failed subscription is tried again after this long (the feed may have fixed its hub). */
export const DENIED_RETRY_MS = 6 * 3600_000;
/** A renewal the hub refused is tried again after this long, while the lease lasts. */
export const RENEWAL_RETRY_MS = 15 * 60_000;

/**
 * @example
 * const subscriber = new WebSubSubscriber({ store, policy, callbackUrl: (id) => `${base}/websub/${id}` });
 * const { hubs, self } = discoverWebSub(fetched);
 * if (hubs[0]) await subscriber.subscribe(feedKey, hubs[0], self);
 * // then, from the scheduler: await subscriber.renewDue();
 */
export class WebSubSubscriber {
  private readonly now: () => number;

  constructor(readonly options: WebSubSubscriberOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Subscribes `feedKey` to `topic` at `hub` (a new id and secret), unless the feed already has a
   * live subscription to the same hub and topic, or one refused a short while ago. A subscription
   * to another hub or topic is ended first.
   */
  async subscribe(feedKey: string, hub: string, topic: string): Promise<WebSubRequestOutcome> {
    const now = this.now();
    const existing = await this.options.store.forFeed(feedKey);
    if (existing && existing.hub === hub && existing.topic === topic) {
      const live = existing.state === "active" || existing.state === "renewing";
      if (live && (existing.expiresAt === null || existing.expiresAt > now))
        return { subscription: existing, accepted: true, detail: "already subscribed" };
      if (existing.state === "pending" && now - existing.requestedAt < PENDING_RETRY_MS)
        return { subscription: existing, accepted: true, detail: "awaiting the hub's verification" };
      if (existing.state === "denied" && now - existing.requestedAt < DENIED_RETRY_MS)
        return { subscription: existing, accepted: false, detail: existing.lastError ?? "denied" };
      // Expired, or never verified, or refused long ago: ask again under the same id and secret.
      return this.request({ ...existing, state: "pending", requestedAt: now, lastError: null }, "subscribe");
    }
    if (existing) await this.unsubscribe(feedKey);
    const subscription: WebSubSubscription = {
      id: randomBytes(18).toString("base64url"),
      feedKey,
      hub,
      topic,
      secret: randomBytes(32).toString("base64url"),
      state: "pending",
      requestedAt: now,
      leaseSeconds: null,
      expiresAt: null,
      renewAt: null,
      lastError: null,
    };
    return this.request(subscription, "subscribe");
  }

  /** Sends the renewals that are due (call it from the scheduler, e.g. once a minute). */
  async renewDue(limit = 20): Promise<WebSubRequestOutcome[]> {
    const due = await this.options.store.dueForRenewal(this.now(), limit);
    const outcomes: WebSubRequestOutcome[] = [];
    for (const subscription of due) {
      outcomes.push(
        await this.request(
          { ...subscription, state: "renewing", requestedAt: this.now(), renewAt: null },
          "subscribe",
        ),
      );
    }
    return outcomes;
  }

  /** Asks the hub to stop pushing the feed (the feed was removed, or is gone). */
  async unsubscribe(feedKey: string): Promise<WebSubRequestOutcome | undefined> {
    const existing = await this.options.store.forFeed(feedKey);
    if (!existing) return undefined;
    if (existing.state !== "active" && existing.state !== "renewing") {
      // Never verified: nothing at the hub to end; the callback refuses it from now on.
      const ended: WebSubSubscription = { ...existing, state: "ended", renewAt: null };
      await this.options.store.save(ended);
      return { subscription: ended, accepted: true, detail: "nothing to end at the hub" };
    }
    return this.request(
      { ...existing, state: "unsubscribing", requestedAt: this.now(), renewAt: null },
      "unsubscribe",
    );
  }

  /**
   * Stores the subscription first (a hub may verify before it even answers the request), then sends
   * the request; a refusal is stored unless the hub's verification already changed the state.
   */
  private async request(
    subscription: WebSubSubscription,
    mode: "subscribe" | "unsubscribe",
  ): Promise<WebSubRequestOutcome> {
    const { store } = this.options;
    await store.save(subscription);
    const form = new URLSearchParams({
      "hub.mode": mode,
      "hub.topic": subscription.topic,
      "hub.callback": this.options.callbackUrl(subscription.id),
    });
    if (mode === "subscribe") {
      form.set("hub.lease_seconds", String(this.options.leaseSeconds ?? DEFAULT_LEASE_SECONDS));
      form.set("hub.secret", subscription.secret);
    }
    let detail: string;
    let accepted = false;
    try {
      const response = await safeFetch(subscription.hub, {
        policy: this.options.policy,
        method: "POST",
        body: form.toString(),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "user-agent": this.options.userAgent ?? feedUserAgent(this.options.policy.ownSite),
        },
        maxBytes: 16 * 1024,
        overflow: "truncate",
        timeoutMs: this.options.timeoutMs ?? 15_000,
      });
      accepted = response.ok;
      const said = new TextDecoder().decode(response.body).trim().slice(0, 300);
      detail = `the hub answered ${response.status}${said && !accepted ? `: ${said}` : ""}`;
    } catch (error) {
      detail = error instanceof Error ? error.message : String(error);
    }
    const current = (await store.get(subscription.id)) ?? subscription;
    if (accepted || current.state !== subscription.state) return { subscription: current, accepted, detail };
    const failed = afterRefusal(current, mode, detail, this.now());
    await store.save(failed);
    return { subscription: failed, accepted, detail };
  }
}

/** The subscription after the hub refused (or could not be reached for) a request. */
function afterRefusal(
  subscription: WebSubSubscription,
  mode: "subscribe" | "unsubscribe",
  detail: string,
  now: number,
): WebSubSubscription {
  // Ending is our decision: the callback refuses the hub's deliveries from now on, whatever it said.
  if (mode === "unsubscribe") return { ...subscription, state: "ended", lastError: detail };
  if (subscription.state === "renewing") {
    // The lease may still run: stay active and try again soon (the margin left room for this).
    return { ...subscription, state: "active", renewAt: now + RENEWAL_RETRY_MS, lastError: detail };
  }
  return { ...subscription, state: "denied", lastError: detail };
}
