// One entry point for the webhook routes: verify the provider's signature over the raw body, then
// decide. Nothing is decided from a body whose signature has not verified. Knows no HTTP framework:
// the route reads the raw body (readRawBody), calls receiveWebhook, and answers from the verdict.
import type { IncomingHttpHeaders } from "node:http";
import type { WebhookDecision } from "./decision.ts";
import { startRun } from "./decision.ts";
import { deliveryKeys } from "./delivery-keys.ts";
import { decideGitHubDeploy, GITHUB_EVENT_HEADER } from "./github-deploy.ts";
import { HUB_SIGNATURE_HEADER, verifyHmacSignature } from "./hmac.ts";
import { NETLIFY_SIGNATURE_HEADER, verifyNetlifyWebhook } from "./netlify.ts";
import { decideNetlifyDeploy } from "./netlify-deploy.ts";
import type { WebhookProvider } from "./webhook-provider.ts";

/** The signature did not verify: answer 401 with `reason` as error_description. */
export interface Unauthorized {
  start: false;
  outcome: "unauthorized";
  status: 401;
  reason: string;
}

/**
 * A verified webhook's decision, with the ids that make its delivery itself: the route checks them
 * against the deliveries seen (deliveries.ts) before it starts anything.
 */
export type VerifiedWebhook = WebhookDecision & { deliveryKeys: string[] };

export type WebhookVerdict = VerifiedWebhook | Unauthorized;

/** The generic webhook's optional X-Webhook-Timestamp: Unix seconds, signed with the body. */
export const WEBHOOK_TIMESTAMP_HEADER = "x-webhook-timestamp";
/** How far a signed timestamp may be from the server's clock, either way. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export interface ReceivedWebhook {
  provider: WebhookProvider;
  headers: IncomingHttpHeaders;
  /** The body exactly as received, from readRawBody. */
  rawBody: Uint8Array;
}

export interface WebhookSettings {
  /** WEBHOOK_SECRET (server.config.secrets.webhookSecret). */
  secret: string | undefined;
  /** webhook.contexts from the plug-in options. */
  contexts: readonly string[];
  /** The clock, in milliseconds (Date.now by default). */
  now?: () => number;
}

export async function receiveWebhook(
  { provider, headers, rawBody }: ReceivedWebhook,
  { secret, contexts, now = Date.now }: WebhookSettings,
): Promise<WebhookVerdict> {
  const verified = (decision: WebhookDecision, timestamp?: string): VerifiedWebhook => ({
    ...decision,
    deliveryKeys: deliveryKeys(provider, headers, rawBody, timestamp),
  });
  if (provider === "netlify") {
    const checked = await verifyNetlifyWebhook({
      signature: headers[NETLIFY_SIGNATURE_HEADER],
      rawBody,
      secret,
    });
    if (!checked.ok) return unauthorized(checked.reason);
    return verified(decideNetlifyDeploy(rawBody, contexts));
  }

  const timestamp = provider === "generic" ? readTimestamp(headers[WEBHOOK_TIMESTAMP_HEADER]) : undefined;
  if (timestamp && !timestamp.ok) return unauthorized(timestamp.reason);
  const checked = verifyHmacSignature({
    signature: headers[HUB_SIGNATURE_HEADER],
    rawBody,
    secret,
    ...(timestamp ? { timestamp: timestamp.value } : {}),
  });
  if (!checked.ok) return unauthorized(checked.reason);
  if (provider === "github")
    return verified(decideGitHubDeploy({ event: headers[GITHUB_EVENT_HEADER], rawBody, contexts }));
  if (timestamp) {
    // Checked once the signature holds: only then is the timestamp the sender's.
    const apart = Math.abs(now() / 1000 - Number(timestamp.value));
    if (apart > TIMESTAMP_TOLERANCE_SECONDS) {
      return unauthorized(
        `X-Webhook-Timestamp is ${Math.round(apart)} seconds from the server's clock; more than ` +
          `${TIMESTAMP_TOLERANCE_SECONDS} apart is refused as a replay (send the current Unix time, and check the clocks)`,
      );
    }
  }
  // The generic webhook's sender chose to sign this request: whatever the body says, it means "deployed".
  return verified(startRun("generic webhook"), timestamp?.value);
}

/** undefined when the header is absent; refused unless it is one Unix time in seconds. */
function readTimestamp(
  header: unknown,
): { ok: true; value: string } | { ok: false; reason: string } | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== "string" || !/^[0-9]{1,12}$/.test(header))
    return {
      ok: false,
      reason: "X-Webhook-Timestamp must be given once, as the Unix time in seconds (e.g. $(date +%s))",
    };
  return { ok: true, value: header };
}

/** Whether a request to `{mountPath}` is Netlify's webhook rather than an authenticated request. */
export function carriesNetlifySignature(headers: IncomingHttpHeaders): boolean {
  return headers[NETLIFY_SIGNATURE_HEADER] !== undefined;
}

function unauthorized(reason: string): Unauthorized {
  return { start: false, outcome: "unauthorized", status: 401, reason };
}
