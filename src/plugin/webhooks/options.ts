// The `webhook` options of the endpoint plug-in. Each message says what is wrong and what to write
// instead; the option's path goes in front of it ("webhook.contexts: must …"), as the host's
// formatIssues does when this schema is embedded in the plug-in's options.
import { z } from "zod";
import { DEFAULT_MAX_BODY_BYTES } from "./raw-body.ts";

export const DEFAULT_WEBHOOK_CONTEXTS: readonly string[] = ["production"];
const MIN_BODY_BYTES = 1_000;
const MAX_BODY_BYTES = 10_000_000;

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
