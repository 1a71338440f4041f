// The subscriber's callback URL, Express-free: the hub's verification GET (W3C WebSub 5.3) and its
// content distribution POST (section 7, signed with X-Hub-Signature). The feed source's route passes
// the request in and writes the response out; `event` says what to do after answering.
import type { WebSubSubscription, WebSubSubscriptionStore } from "./subscription-store.ts";

export interface WebSubCallbackRequest {
  method: string;
  /** The id from the callback URL's last segment. */
  subscriptionId: string;
  /** The query string's parameters (hub.mode, hub.topic, hub.challenge, hub.lease_seconds…). */
  query: Record<string, string | string[] | undefined>;
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The POST body as received, undecoded (the signature is over these bytes). */
  rawBody?: Uint8Array;
}

export interface WebSubCallbackResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
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
}

/**
 * Answers one request to the callback URL.
 *
 * @example
 * const { response, event } = await handleWebSubCallback(
 *   { method: req.method, subscriptionId: req.params.id, query: req.query, headers: req.headers, rawBody },
 *   { store },
 * );
 * res.status(response.status).set(response.headers).send(response.body);
 * if (event?.kind === "notified") feeds.fetchNow(event.subscription.feedKey);
 */
export async function handleWebSubCallback(
  request: WebSubCallbackRequest,
  options: WebSubCallbackOptions,
): Promise<WebSubCallbackResult> {
  void request;
  void options;
  throw new Error("not written yet");
}
