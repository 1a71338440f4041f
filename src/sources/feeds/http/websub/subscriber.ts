// The WebSub subscriber (W3C WebSub, section 5): asks a feed's hub to push it, keeps the lease
// renewed, and unsubscribes when the feed goes away. The hub's answers come back through the
// callback handler (callback.ts) that the feed source mounts on a public route.
import { randomBytes } from "node:crypto";
import { type OutgoingFetchPolicy, type SafeResponse, safeFetch } from "../../../../net/safe-fetch.ts";
import { feedUserAgent } from "../user-agent.ts";
import { renewalRetryTime } from "./renewal.ts";
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
 * How many times a hub may send the request on with 307 or 308 (WebSub 5.1.2) before we give up:
 * enough for a hub that moved, and for one that hands requests to a shard.
 */
export const MAX_HUB_REDIRECTS = 3;

/**
 * The request's form (WebSub 5.1). The secret only ever goes to an https URL: the spec says a
 * secret SHOULD only be sent over HTTPS, and a secret sent in the clear signs nothing.
 *
 * @example
 * hubRequestForm({ mode: "subscribe", hub: "https://hub.example/", topic, callback, leaseSeconds: 864000, secret });
 */
export function hubRequestForm(request: {
  mode: "subscribe" | "unsubscribe";
  hub: string;
  topic: string;
  callback: string;
  leaseSeconds: number;
  secret: string | null;
}): URLSearchParams {
  const form = new URLSearchParams({
    "hub.mode": request.mode,
    "hub.topic": request.topic,
    "hub.callback": request.callback,
  });
  if (request.mode === "subscribe") {
    form.set("hub.lease_seconds", String(request.leaseSeconds));
    if (request.secret !== null && request.hub.startsWith("https:")) form.set("hub.secret", request.secret);
  }
  return form;
}

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
      // Over plain http the secret would travel in the clear: none is made, none is sent.
      secret: hub.startsWith("https:") ? randomBytes(32).toString("base64url") : null,
      state: "pending",
      requestedAt: now,
      leaseSeconds: null,
      expiresAt: null,
      renewAt: null,
      lastError: null,
    };
    return this.request(subscription, "subscribe");
  }

  /**
   * Sends the renewals that are due (the feed source calls it at each subscription's renewAt). A
   * subscription whose feed is not `wanted` any more is ended at the hub instead of renewed.
   */
  async renewDue(
    limit = 20,
    wanted: (feedKey: string) => boolean = () => true,
  ): Promise<WebSubRequestOutcome[]> {
    const due = await this.options.store.dueForRenewal(this.now(), limit);
    const outcomes: WebSubRequestOutcome[] = [];
    for (const subscription of due) {
      outcomes.push(
        wanted(subscription.feedKey)
          ? await this.request(
              { ...subscription, state: "renewing", requestedAt: this.now(), renewAt: null },
              "subscribe",
            )
          : await this.end(subscription),
      );
    }
    return outcomes;
  }

  /** Asks the hub to stop pushing the feed (the feed was removed, or is gone). */
  async unsubscribe(feedKey: string): Promise<WebSubRequestOutcome | undefined> {
    const existing = await this.options.store.forFeed(feedKey);
    return existing ? this.end(existing) : undefined;
  }

  /**
   * Ends one subscription: unsubscribes at the hub when the hub holds it, else just marks it ended.
   * From then on its callback answers deliveries 410 Gone, which tells the hub to stop.
   */
  async end(existing: WebSubSubscription): Promise<WebSubRequestOutcome> {
    if (existing.state === "ended")
      return { subscription: existing, accepted: true, detail: "already ended" };
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
    // A hub on plain http gets no secret (a subscription stored before that rule forgets its own).
    if (!subscription.hub.startsWith("https:")) subscription = { ...subscription, secret: null };
    await store.save(subscription);
    let detail: string;
    let accepted = false;
    try {
      const response = await this.post(subscription, mode);
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

  /**
   * POSTs the request to the hub, and again where a 307 or 308 sends it (WebSub 5.1.2: a hub that
   * cannot handle the request "MAY redirect to another hub"), at most MAX_HUB_REDIRECTS times. Each
   * hop is fetched under the outgoing-fetch rules (no private address). 301, 302 and 303 are not how
   * a hub moves (they turn a POST into a GET): such an answer is a refusal. A redirect from https
   * to plain http is not followed when the request carries our secret.
   */
  private async post(
    subscription: WebSubSubscription,
    mode: "subscribe" | "unsubscribe",
  ): Promise<SafeResponse> {
    let hub = subscription.hub;
    for (let redirects = 0; ; redirects++) {
      const form = hubRequestForm({
        mode,
        hub,
        topic: subscription.topic,
        callback: this.options.callbackUrl(subscription.id),
        leaseSeconds: this.options.leaseSeconds ?? DEFAULT_LEASE_SECONDS,
        secret: subscription.secret,
      });
      const response = await safeFetch(hub, {
        policy: this.options.policy,
        method: "POST",
        redirect: "manual",
        body: form.toString(),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "user-agent": this.options.userAgent ?? feedUserAgent(this.options.policy.ownSite),
        },
        maxBytes: 16 * 1024,
        overflow: "truncate",
        timeoutMs: this.options.timeoutMs ?? 15_000,
      });
      const location = response.headers.get("location");
      if ((response.status !== 307 && response.status !== 308) || !location) return response;
      if (redirects >= MAX_HUB_REDIRECTS)
        throw new Error(
          `${subscription.hub}: the hub sent the request on more than ${MAX_HUB_REDIRECTS} times`,
        );
      let next: URL;
      try {
        next = new URL(location, hub);
      } catch {
        throw new Error(`${hub}: the hub sent the request on to an invalid URL`);
      }
      if (next.protocol !== "https:" && next.protocol !== "http:")
        throw new Error(`${hub}: the hub sent the request on to ${next.protocol} (only http and https)`);
      if (hub.startsWith("https:") && next.protocol === "http:" && form.has("hub.secret"))
        throw new Error(
          `${hub}: the hub sent the request on to plain http, where our secret would travel in the clear`,
        );
      hub = next.href;
    }
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
    // The lease may still run: stay active and try again while it does (the margin left room).
    const renewAt = renewalRetryTime(now, subscription.expiresAt, RENEWAL_RETRY_MS);
    return { ...subscription, state: "active", renewAt, lastError: detail };
  }
  return { ...subscription, state: "denied", lastError: detail };
}
