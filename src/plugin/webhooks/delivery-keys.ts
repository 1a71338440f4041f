// What makes a delivery itself, for replay protection (deliveries.ts): read only after the
// signature has verified. GitHub names each delivery (X-GitHub-Delivery, which a redelivery
// repeats); that header is not signed, so the signed body's hash is kept as well: changing the
// header does not make a captured body new. Netlify's signed deploy object has an id and a state
// (one deploy notifies "building", then "ready"). The generic webhook's sender has only its body,
// with the signed X-Webhook-Timestamp when it sends one, so that the same body can come again later.
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { parseNetlifyDeploy } from "./netlify-deploy.ts";
import type { WebhookProvider } from "./webhook-provider.ts";

export const GITHUB_DELIVERY_HEADER = "x-github-delivery";

/** GitHub's ids are GUIDs; anything much longer or unprintable is not one and is not kept. */
const DELIVERY_ID = /^[\x21-\x7e]{1,100}$/;

const sha256 = (body: Uint8Array) => createHash("sha256").update(body).digest("hex");

export function deliveryKeys(
  provider: WebhookProvider,
  headers: IncomingHttpHeaders,
  rawBody: Uint8Array,
  timestamp: string | undefined,
): string[] {
  const body = sha256(rawBody);
  switch (provider) {
    case "github": {
      const delivery = headers[GITHUB_DELIVERY_HEADER];
      const named = typeof delivery === "string" && DELIVERY_ID.test(delivery);
      return [`github:body:${body}`, ...(named ? [`github:delivery:${delivery}`] : [])];
    }
    case "netlify": {
      const parsed = parseNetlifyDeploy(rawBody);
      return [
        parsed.ok ? `netlify:deploy:${parsed.deploy.id}:${parsed.deploy.state}` : `netlify:body:${body}`,
      ];
    }
    case "generic":
      return [`generic:${timestamp ?? "-"}:${body}`];
  }
}
