// Netlify posts the deploy object as the body of a deploy notification. Only a deploy that is live
// on the site (state "ready") in a chosen context (production by default) means the new posts now
// exist at their URLs; previews and branch deploys publish elsewhere, failed deploys publish nothing.
import { z } from "zod";
import {
  ignored,
  invalidBody,
  isConfiguredContext,
  shown,
  startRun,
  type WebhookDecision,
} from "./decision.ts";

const optionalText = z.string().nullish();

/** The fields of Netlify's deploy object we read or log; the others are kept as they came. */
export const netlifyDeploySchema = z.looseObject({
  id: z.string(),
  site_id: z.string(),
  /** "ready" once a deploy is live; "error", "building", … otherwise. */
  state: z.string(),
  /** "production", "deploy-preview", "branch-deploy", or a named context. */
  context: z.string(),
  name: optionalText,
  branch: optionalText,
  commit_ref: optionalText,
  url: optionalText,
  ssl_url: optionalText,
  deploy_url: optionalText,
  deploy_ssl_url: optionalText,
  title: optionalText,
  error_message: optionalText,
  created_at: optionalText,
  published_at: optionalText,
});

export type NetlifyDeploy = z.infer<typeof netlifyDeploySchema>;

export const NETLIFY_READY_STATE = "ready";

/**
 * Decides whether a (verified) Netlify deploy notification starts a run. `contexts` are the
 * configured deploy contexts (webhook.contexts, ["production"] by default).
 */
export function decideNetlifyDeploy(rawBody: Uint8Array, contexts: readonly string[]): WebhookDecision {
  const parsed = parseNetlifyDeploy(rawBody);
  if (!parsed.ok) return invalidBody(parsed.reason);
  return decideForDeploy(parsed.deploy, contexts);
}

export type NetlifyDeployParse = { ok: true; deploy: NetlifyDeploy } | { ok: false; reason: string };

/** Reads the body as Netlify's deploy object. */
export function parseNetlifyDeploy(rawBody: Uint8Array): NetlifyDeployParse {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(rawBody).toString("utf8"));
  } catch {
    return { ok: false, reason: "The webhook body is not JSON; Netlify sends the deploy as a JSON object." };
  }
  const parsed = netlifyDeploySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? ` (field ${issue.path.join(".")})` : "";
    return { ok: false, reason: `The webhook body is not a Netlify deploy object${field}.` };
  }
  return { ok: true, deploy: parsed.data };
}

/** The decision for a deploy object already read. */
export function decideForDeploy(deploy: NetlifyDeploy, contexts: readonly string[]): WebhookDecision {
  if (deploy.state !== NETLIFY_READY_STATE) {
    return ignored(
      `deploy state is ${shown(deploy.state)}, not ${NETLIFY_READY_STATE}: only a successful deploy starts a run`,
    );
  }
  if (!isConfiguredContext(deploy.context, contexts)) {
    return ignored(`deploy context ${shown(deploy.context)} is not one of: ${contexts.join(", ")}`);
  }
  const site = deploy.name ?? deploy.site_id;
  return startRun(`Netlify ${deploy.context} deploy ${shown(deploy.id)} of ${shown(site)} is ready`);
}
