// The `webhook` options of the endpoint plug-in. Each message says what is wrong and what to write
// instead; the option's path goes in front of it ("webhook.contexts: must …"), as the host's
// formatIssues does when this schema is embedded in the plug-in's options.
import { z } from "zod";
import { DEFAULT_MAX_BODY_BYTES } from "./raw-body.ts";

export const DEFAULT_WEBHOOK_CONTEXTS: readonly string[] = ["production"];
const MIN_BODY_BYTES = 1_000;
const MAX_BODY_BYTES = 10_000_000;
const PACKAGE_NAME = "@possekit/endpoint-syndicate";

const contextsMessage =
  'must be a list of deploy context names, such as ["production"] or ["production", "branch-deploy"]. ' +
  'Remove it to use the default ["production"].';
const maxBodyBytesMessage =
  `must be a whole number of bytes from ${MIN_BODY_BYTES} to ${MAX_BODY_BYTES}, ` +
  `such as ${DEFAULT_MAX_BODY_BYTES} (the default, which suits Netlify and GitHub).`;

export const webhookOptionsSchema = z
  .strictObject(
    {
      /** Deploy contexts (Netlify) or environments (GitHub) whose successful deploys start a run. */
      contexts: z
        .array(z.string({ error: contextsMessage }).trim().min(1, { error: contextsMessage }), {
          error: contextsMessage,
        })
        .min(1, {
          error:
            "must name at least one deploy context, or no webhook could ever start a run. " +
            'Remove it to use the default ["production"].',
        })
        .default(() => [...DEFAULT_WEBHOOK_CONTEXTS]),
      /** The largest webhook body read, in bytes; larger ones are answered 413. */
      maxBodyBytes: z
        .number({ error: maxBodyBytesMessage })
        .int({ error: maxBodyBytesMessage })
        .min(MIN_BODY_BYTES, { error: maxBodyBytesMessage })
        .max(MAX_BODY_BYTES, { error: maxBodyBytesMessage })
        .default(DEFAULT_MAX_BODY_BYTES),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `has unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; ` +
            "the webhook options are contexts and maxBodyBytes."
          : 'must be an object, such as { contexts: ["production"], maxBodyBytes: 100000 }.',
    },
  )
  // An absent `webhook` entry means all the defaults.
  .prefault({});

export type WebhookOptions = z.output<typeof webhookOptionsSchema>;

/** A configuration mistake in the webhook options; the message names the option. */
export class WebhookOptionsError extends Error {
  constructor(readonly problems: string[]) {
    super(`The ${PACKAGE_NAME} configuration is invalid:\n${problems.map((p) => `- ${p}`).join("\n")}`);
    this.name = "WebhookOptionsError";
  }
}

/** Reads the plug-in's `webhook` option (undefined when absent). Throws WebhookOptionsError. */
export function parseWebhookOptions(value: unknown): WebhookOptions {
  const parsed = webhookOptionsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new WebhookOptionsError(
    parsed.error.issues.map((issue) => `${optionName(issue.path)}: ${issue.message}`),
  );
}

function optionName(path: readonly PropertyKey[]): string {
  // Entries of contexts are reported as the list itself: the fix is to the list.
  const named = path.filter((part): part is string => typeof part === "string");
  return ["webhook", ...named].join(".");
}
