// The subscriber's callback URL, Express-free: the hub's verification GET (W3C WebSub 5.3) and its
// content distribution POST (section 7, signed with X-Hub-Signature). The feed source's route passes
// the request in and writes the response out; `event` says what to do after answering.
import { z } from "zod";
import { renewalTime } from "./renewal.ts";
import { verifyHubSignature } from "./signature.ts";
import type { WebSubSubscription, WebSubSubscriptionStore } from "./subscription-store.ts";

export interface WebSubCallbackRequest {
  method: string;
  /** The id from the callback URL's last segment. */
  subscriptionId: string;
  /** The query string's parameters (hub.mode, hub.topic, hub.challenge, hub.lease_seconds…). */
  query: Record<string, string | string[] | undefined>;
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * Reads the POST body as received, undecoded (the signature is over these bytes). Called only for
   * a subscription that takes deliveries: an unknown or ended one is answered before any byte is read.
   */
  readBody?: () => Promise<Uint8Array>;
}

export interface WebSubCallbackResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * The id names no subscription of ours (a guess, or one long forgotten): the route counts it
   * against the client's address, like any other refused request to a public route.
   */
  unknown?: boolean;
}

export type WebSubCallbackEvent =
  /** The hub confirmed the subscription. */
  | { kind: "verified"; subscription: WebSubSubscription }
  /** The hub confirmed the unsubscription. */
  | { kind: "unsubscribed"; subscription: WebSubSubscription }
  /** The hub refused the subscription (hub.reason). */
  | { kind: "denied"; subscription: WebSubSubscription; reason: string }
  /** A correctly signed notification: fetch the feed now (the body is the feed's new content). */
  | { kind: "notified"; subscription: WebSubSubscription; body: Uint8Array; contentType: string | null }
  /** A notification that failed the signature check: answered 2xx as the spec allows, not used. */
  | { kind: "ignored"; subscription: WebSubSubscription | undefined; reason: string };

export interface WebSubCallbackResult {
  response: WebSubCallbackResponse;
  event?: WebSubCallbackEvent;
}

export interface WebSubCallbackOptions {
  store: WebSubSubscriptionStore;
  now?: () => number;
  /** Most bytes of a notification body (default 5 MB); larger → 413. */
  maxBytes?: number;
  /**
   * Whether the subscription's feed is still read (configured). One that is not is answered as
   * ended: 404 to the hub's verification of a subscribe, 410 Gone to a delivery. Default: every feed.
   */
  wanted?: (feedKey: string) => boolean;
}

/**
 * Answers one request to the callback URL.
 *
 * @example
 * const { response, event } = await handleWebSubCallback(
 *   { method: req.method, subscriptionId: req.params.id, query: req.query, headers: req.headers,
 *     readBody: () => readRawBody(req, { limit: DEFAULT_NOTIFICATION_MAX_BYTES }) },
 *   { store },
 * );
 * res.status(response.status).set(response.headers).send(response.body);
 * if (event?.kind === "notified") feeds.fetchNow(event.subscription.feedKey);
 */
export async function handleWebSubCallback(
  request: WebSubCallbackRequest,
  options: WebSubCallbackOptions,
): Promise<WebSubCallbackResult> {
  const method = request.method.toUpperCase();
  if (method !== "GET" && method !== "POST")
    return {
      response: { status: 405, headers: { allow: "GET, POST", ...TEXT }, body: "Method not allowed\n" },
    };
  // The id first: a stranger's guess is refused before a byte of its body is read (and one that is
  // not even shaped like our ids before the database is asked).
  const id = subscriptionId.safeParse(request.subscriptionId);
  const subscription = id.success ? await options.store.get(id.data) : undefined;
  if (!subscription)
    return method === "GET" ? { response: { ...notFound().response, unknown: true } } : gone(true);
  const wanted = options.wanted?.(subscription.feedKey) ?? true;
  return method === "GET"
    ? verify(request, subscription, wanted, options)
    : receive(request, subscription, wanted, options.maxBytes ?? DEFAULT_NOTIFICATION_MAX_BYTES);
}

export const DEFAULT_NOTIFICATION_MAX_BYTES = 5 * 1024 * 1024;
/** Our ids are 24 base64url characters (subscriber.ts); a little room for ids made otherwise. */
const subscriptionId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
/** A hub that names no lease is taken to grant a day, so that the renewal comes early rather than late. */
const ASSUMED_LEASE_SECONDS = 86_400;

// The challenge is echoed as plain text that no browser will sniff into a page.
const TEXT = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };
const notFound = (): WebSubCallbackResult => ({
  response: { status: 404, headers: TEXT, body: "No such pending subscription\n" },
});
// 410 tells the hub to stop (WebSub 7). The connection is closed after it: the body the hub is
// still sending is not read.
const gone = (unknown = false): WebSubCallbackResult => ({
  response: {
    status: 410,
    headers: { ...TEXT, connection: "close" },
    body: "No such subscription\n",
    ...(unknown ? { unknown } : {}),
  },
});

// The hub's verification request, as WebSub 5.3 and 5.2 (denial) define it. Anything else is not a
// verification we take part in: 404, like a verification we did not ask for.
const verificationQuery = z.object({
  "hub.mode": z.enum(["subscribe", "unsubscribe", "denied"]),
  "hub.topic": z.string().min(1),
  "hub.challenge": z.string().min(1).max(2048).optional(),
  "hub.lease_seconds": z.coerce.number().int().positive().optional().catch(undefined),
  "hub.reason": z
    .string()
    .transform((reason) => reason.slice(0, 500))
    .optional()
    .catch(undefined),
});

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

/**
 * The hub's verification of intent (WebSub 5.3): echo hub.challenge only for the topic of a request
 * we are waiting on, in the mode we asked for; 404 for anything else, so that no one can subscribe
 * us to anything, or unsubscribe us, in our name.
 */
async function verify(
  request: WebSubCallbackRequest,
  subscription: WebSubSubscription,
  wanted: boolean,
  options: WebSubCallbackOptions,
): Promise<WebSubCallbackResult> {
  const parsed = verificationQuery.safeParse(request.query);
  if (!parsed.success) return notFound();
  const {
    "hub.mode": mode,
    "hub.topic": topic,
    "hub.challenge": challenge,
    "hub.lease_seconds": leaseAsked,
    "hub.reason": hubReason,
  } = parsed.data;
  if (topic !== subscription.topic) return notFound();
  const { store } = options;
  const now = (options.now ?? Date.now)();
  const waiting = subscription.state === "pending" || subscription.state === "renewing";

  if (mode === "denied" && waiting) {
    const reason = hubReason ?? "the hub gave no reason";
    const denied: WebSubSubscription = { ...subscription, state: "denied", renewAt: null, lastError: reason };
    await store.save(denied);
    return {
      response: { status: 200, headers: TEXT, body: "" },
      event: { kind: "denied", subscription: denied, reason },
    };
  }
  if (!challenge) return notFound();
  if (mode === "subscribe" && waiting && wanted) {
    const leaseSeconds = leaseAsked ?? ASSUMED_LEASE_SECONDS;
    const active: WebSubSubscription = {
      ...subscription,
      state: "active",
      leaseSeconds,
      expiresAt: now + leaseSeconds * 1000,
      renewAt: renewalTime(now, leaseSeconds),
      lastError: null,
    };
    await store.save(active);
    return {
      response: { status: 200, headers: TEXT, body: challenge },
      event: { kind: "verified", subscription: active },
    };
  }
  if (mode === "unsubscribe" && subscription.state === "unsubscribing") {
    const ended: WebSubSubscription = { ...subscription, state: "ended", renewAt: null };
    await store.save(ended);
    return {
      response: { status: 200, headers: TEXT, body: challenge },
      event: { kind: "unsubscribed", subscription: ended },
    };
  }
  return notFound();
}

/**
 * A content distribution (WebSub 7): used only when X-Hub-Signature is the HMAC of these bytes with
 * this subscription's secret. A bad or missing signature is answered 202 like a good one (the spec
 * allows it, and a forger learns nothing), and nothing is fetched. A subscription made without a
 * secret (a hub on plain http) has nothing to check: its delivery only reads the feed from the site,
 * whose copy is what is used. A subscription we ended, or are ending, or whose feed is no longer
 * read, gets 410, which tells the hub to stop; its body is never read.
 */
async function receive(
  request: WebSubCallbackRequest,
  subscription: WebSubSubscription,
  wanted: boolean,
  maxBytes: number,
): Promise<WebSubCallbackResult> {
  const { state } = subscription;
  if (!wanted || state === "ended" || state === "denied" || state === "unsubscribing") return gone();
  const accepted = { status: 202, headers: TEXT, body: "" };
  if (state === "pending") {
    // Unused, so unread: the connection is closed after the answer.
    return {
      response: { ...accepted, headers: { ...TEXT, connection: "close" } },
      event: { kind: "ignored", subscription, reason: `subscription ${state}` },
    };
  }
  const body = (await request.readBody?.()) ?? new Uint8Array();
  if (body.byteLength > maxBytes)
    return { response: { status: 413, headers: TEXT, body: "Notification too large\n" } };
  const contentType = single(request.headers["content-type"]) ?? null;
  if (subscription.secret === null)
    return { response: accepted, event: { kind: "notified", subscription, body, contentType } };
  const signature = single(request.headers["x-hub-signature"]);
  if (!verifyHubSignature(signature, subscription.secret, body)) {
    const reason = signature ? "X-Hub-Signature does not match" : "no X-Hub-Signature";
    return { response: accepted, event: { kind: "ignored", subscription, reason } };
  }
  return { response: accepted, event: { kind: "notified", subscription, body, contentType } };
}
