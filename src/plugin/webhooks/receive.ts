// One entry point for the webhook routes: verify the provider's signature over the raw body, then
// decide. Nothing is decided from a body whose signature has not verified. Knows no HTTP framework:
// the route reads the raw body (readRawBody), calls receiveWebhook, and answers from the verdict.
import type { IncomingHttpHeaders } from "node:http";
import type { WebhookDecision } from "./decision.ts";
import { startRun } from "./decision.ts";
import { decideGitHubDeploy, GITHUB_EVENT_HEADER } from "./github-deploy.ts";
import { HUB_SIGNATURE_HEADER, verifyHmacSignature } from "./hmac.ts";
import { NETLIFY_SIGNATURE_HEADER, verifyNetlifyWebhook } from "./netlify.ts";
import { decideNetlifyDeploy } from "./netlify-deploy.ts";

/**
 * netlify: `{mountPath}` with X-Webhook-Signature, and `{mountPath}/webhook/netlify`;
 * github: `{mountPath}/webhook/github`; generic: `{mountPath}/webhook`.
 */
export type WebhookProvider = "netlify" | "github" | "generic";

/** The signature did not verify: answer 401 with `reason` as error_description. */
export interface Unauthorized {
  start: false;
  outcome: "unauthorized";
  status: 401;
  reason: string;
}

export type WebhookVerdict = WebhookDecision | Unauthorized;

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
}

export async function receiveWebhook(
  { provider, headers, rawBody }: ReceivedWebhook,
  { secret, contexts }: WebhookSettings,
): Promise<WebhookVerdict> {
  if (provider === "netlify") {
    const verified = await verifyNetlifyWebhook({
      signature: headers[NETLIFY_SIGNATURE_HEADER],
      rawBody,
      secret,
    });
    if (!verified.ok) return unauthorized(verified.reason);
    return decideNetlifyDeploy(rawBody, contexts);
  }

  const verified = verifyHmacSignature({ signature: headers[HUB_SIGNATURE_HEADER], rawBody, secret });
  if (!verified.ok) return unauthorized(verified.reason);
  if (provider === "github")
    return decideGitHubDeploy({ event: headers[GITHUB_EVENT_HEADER], rawBody, contexts });
  // The generic webhook's sender chose to sign this request: whatever the body says, it means "deployed".
  return startRun("generic webhook");
}

/** Whether a request to `{mountPath}` is Netlify's webhook rather than an authenticated request. */
export function carriesNetlifySignature(headers: IncomingHttpHeaders): boolean {
  return headers[NETLIFY_SIGNATURE_HEADER] !== undefined;
}

function unauthorized(reason: string): Unauthorized {
  return { start: false, outcome: "unauthorized", status: 401, reason };
}
