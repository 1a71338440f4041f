// Options of the endpoint plug-in (spec §2.1), validated at construction with errors that name the option.
import { z } from "zod";
import { parseOptions } from "../contract/options/option-schemas.ts";
import { FEEDS_LIST_MESSAGE, feedOptionsProblems, feedOptionsSchema } from "../sources/feeds/feed-options.ts";
import {
  micropubSourceOptionsSchema,
  micropubSourceProblems,
} from "../sources/micropub/micropub-source-options.ts";
import { copiesOptionsSchema } from "./copies/copies-options.ts";
import { ownDatabaseOptionSchema } from "./indiekit/own-database-options.ts";
import { retryOptionsSchema, scheduleOptionsSchema } from "./schedule-options.ts";
import { webhookOptionsSchema } from "./webhooks/options.ts";

export const endpointOptionsSchema = z.strictObject({
  /** Path at which the syndication endpoint is mounted. */
  mountPath: z
    .string()
    .regex(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$|^\/[A-Za-z0-9._~-]+$/, {
      error: 'must be a path like "/syndicate" (starting with "/", no trailing "/")',
    })
    .default("/syndicate"),
  /** How long one target may take for one post before it counts as failed, in milliseconds. */
  targetTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  /** How long the batch lease lives without renewal; a crashed run frees the endpoint after this. */
  leaseMs: z.number().int().min(1_000).max(3_600_000).default(30_000),
  /** Unattended syndication: what is due is sent without anyone asking. */
  schedule: scheduleOptionsSchema,
  /** Backoff of failed sends and of checks that a new post is live. */
  retry: retryOptionsSchema,
  /** Deploy webhooks: which contexts start a run, and the largest body read. */
  webhook: webhookOptionsSchema,
  /** The targets themselves: asked at start, in the background, whether they would take a post. */
  targets: z
    .strictObject({ checkAtStart: z.boolean({ error: "must be true or false" }).default(true) })
    .default({ checkAtStart: true }),
  /** The public copies routes (docs/copies.md): requests per address and window. */
  copies: copiesOptionsSchema,
  /**
   * Under a host that offers no database of possekit's (Indiekit): the plug-in's own, an embedded
   * PGlite folder or a PostgreSQL URL. Without it the page says the endpoint needs one.
   */
  database: ownDatabaseOptionSchema,
  /**
   * Under Indiekit: possekit's own targets, by package name, with their options as possekit's
   * config file gives them, e.g. { "@possekit/syndicator-mastodon": { url, user } }.
   */
  syndicators: z
    .record(
      z.string().regex(/^@possekit\/syndicator-[a-z-]+$/, {
        error: 'must be a package name like "@possekit/syndicator-mastodon"',
      }),
      z.record(z.string(), z.unknown(), { error: "must be an object of that target's options" }),
      { error: 'must be an object like { "@possekit/syndicator-mastodon": { url, user } }' },
    )
    .default({}),
  /** Posts that live elsewhere, syndicated from here: a remote Micropub server (docs/sources.md). */
  sources: z
    .array(micropubSourceOptionsSchema, {
      error:
        'must be a list, such as [{ type: "micropub", name: "blog", endpoint: "https://blog.example/micropub" }]',
    })
    .default([]),
  /** Posts from any site's feed, syndicated from here (docs/sources.md). */
  feeds: z.array(feedOptionsSchema, { error: FEEDS_LIST_MESSAGE }).default([]),
});

export type EndpointOptions = z.infer<typeof endpointOptionsSchema>;

/** The options, or an OptionsError listing every mistake; `env` holds the sources' tokens. */
export function parseEndpointOptions(
  options: unknown,
  env: NodeJS.ProcessEnv = process.env,
): EndpointOptions {
  const schema = endpointOptionsSchema.superRefine((parsed, context) => {
    for (const [path, message] of micropubSourceProblems(parsed.sources, env))
      context.addIssue({ code: "custom", path: ["sources", ...path], message });
    for (const [path, message] of feedOptionsProblems(parsed.feeds, env))
      context.addIssue({ code: "custom", path: ["feeds", ...path], message });
  });
  return parseOptions("endpoint-syndicate", schema, options);
}
