// GitHub (and the hosts that report through it: GitHub Pages, Vercel, Cloudflare Pages, …) says a
// deploy finished with a deployment_status event whose state is "success". Like Netlify's
// contexts, the deployment's environment must be one of webhook.contexts, compared without regard
// to case ("Production" on Vercel), so that preview deployments do not start runs. GitHub Pages
// reports the environment "github-pages": such sites add it to webhook.contexts.
import { z } from "zod";
import {
  ignored,
  invalidBody,
  isConfiguredContext,
  pong,
  shown,
  startRun,
  type WebhookDecision,
} from "./decision.ts";

/** Lower-case, as Node presents header names. */
export const GITHUB_EVENT_HEADER = "x-github-event";
export const GITHUB_SUCCESS_STATE = "success";

// GitHub event names are short snake_case words; anything else is not a GitHub event header.
const eventNameSchema = z.string().regex(/^[a-z_]{1,64}$/);

export const githubDeploymentStatusEventSchema = z.looseObject({
  action: z.string().optional(),
  deployment_status: z.looseObject({
    /** error, failure, inactive, in_progress, queued, pending or success. */
    state: z.string(),
    environment: z.string().optional(),
    environment_url: z.string().nullish(),
    target_url: z.string().nullish(),
  }),
  deployment: z
    .looseObject({
      id: z.number().optional(),
      environment: z.string().optional(),
      ref: z.string().nullish(),
      sha: z.string().optional(),
    })
    .optional(),
  repository: z.looseObject({ full_name: z.string() }).optional(),
});

export type GitHubDeploymentStatusEvent = z.infer<typeof githubDeploymentStatusEventSchema>;

const pingSchema = z.looseObject({
  hook: z.looseObject({ events: z.array(z.string()).optional() }).optional(),
});

export interface GitHubDeployRequest {
  /** The X-GitHub-Event header as received. */
  event: unknown;
  /** The body exactly as received; its signature has been verified. */
  rawBody: Uint8Array;
  /** webhook.contexts: the deployment environments that start a run. */
  contexts: readonly string[];
}

/** Decides what a verified GitHub webhook asks for. */
export function decideGitHubDeploy({ event, rawBody, contexts }: GitHubDeployRequest): WebhookDecision {
  if (event === undefined) return invalidBody("The request has no X-GitHub-Event header.");
  const name = eventNameSchema.safeParse(event);
  if (!name.success) return invalidBody("The X-GitHub-Event header is not a GitHub event name.");
  if (name.data === "ping") return decidePing(rawBody);
  if (name.data !== "deployment_status") {
    return ignored(`GitHub event ${name.data} does not start a run; only deployment_status does`);
  }

  const json = parseJson(rawBody);
  if (!json.ok) return invalidBody(json.reason);
  const parsed = githubDeploymentStatusEventSchema.safeParse(json.value);
  if (!parsed.success) {
    return invalidBody(
      "The webhook body is not a GitHub deployment_status event (it has no deployment_status.state).",
    );
  }
  return decideForDeploymentStatus(parsed.data, contexts);
}

/** The decision for a deployment_status event already read. */
export function decideForDeploymentStatus(
  payload: GitHubDeploymentStatusEvent,
  contexts: readonly string[],
): WebhookDecision {
  const { state } = payload.deployment_status;
  if (state !== GITHUB_SUCCESS_STATE) {
    return ignored(
      `deployment state is ${shown(state)}, not ${GITHUB_SUCCESS_STATE}: only a successful deployment starts a run`,
    );
  }
  const environment = payload.deployment_status.environment || payload.deployment?.environment;
  if (!environment)
    return ignored("the deployment names no environment, so it cannot be one of the contexts");
  if (!isConfiguredContext(environment, contexts)) {
    return ignored(`deployment environment ${shown(environment)} is not one of: ${contexts.join(", ")}`);
  }
  const repository = payload.repository ? ` of ${shown(payload.repository.full_name)}` : "";
  return startRun(`GitHub deployment to ${shown(environment)}${repository} succeeded`);
}

function decidePing(rawBody: Uint8Array): WebhookDecision {
  const json = parseJson(rawBody);
  const events = json.ok ? pingSchema.safeParse(json.value).data?.hook?.events : undefined;
  if (events && !events.includes("deployment_status") && !events.includes("*")) {
    return pong(
      "pong: the webhook is set up, but it does not send Deployment statuses events, so it will never start a run",
    );
  }
  return pong("pong: the webhook is set up");
}

type JsonParse = { ok: true; value: unknown } | { ok: false; reason: string };

function parseJson(rawBody: Uint8Array): JsonParse {
  try {
    return { ok: true, value: JSON.parse(Buffer.from(rawBody).toString("utf8")) };
  } catch {
    return {
      ok: false,
      reason: "The webhook body is not JSON. Set the GitHub webhook's content type to application/json.",
    };
  }
}
