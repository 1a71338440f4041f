// Options of @possekit/syndicator-bluesky. The app password comes from the environment
// (BLUESKY_PASSWORD) unless given; without one the plug-in refuses to start.
import { z } from "zod";
import {
  booleanOption,
  fromEnv,
  parseOptions,
  requiredString,
  serviceUrl,
} from "../../contract/options/option-schemas.ts";
import { appendUrlOption, templateOption } from "../shared/copy-template.ts";
import { threadOptionFields } from "../shared/thread-options.ts";

export const blueskyPluginId = "syndicator-bluesky";

const handlePattern = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/i;

const schema = z
  .object(
    {
      /** The account's handle, e.g. alice.bsky.social (a leading @ is dropped). */
      handle: requiredString("a Bluesky handle such as alice.bsky.social")
        .transform((handle) => handle.replace(/^@/, "").toLowerCase())
        .refine((handle) => handlePattern.test(handle), {
          error: "must be a Bluesky handle such as alice.bsky.social",
        }),
      /** An app password (Settings → Privacy and security → App passwords), not the account password. */
      password: requiredString("a non-empty string", "is required (or set BLUESKY_PASSWORD)"),
      /** The account's PDS or the entryway that finds it. */
      serviceUrl: serviceUrl().default("https://bsky.social"),
      /** Link every post back to the original, not only those that had to be cut. */
      includePermalink: booleanOption(false),
      /** Add the post's categories as hashtags (linked as Bluesky tags). */
      includeCategories: booleanOption(true),
      /** The post's text as a nunjucks template of the post; unset: name, else summary, else content. */
      template: templateOption(),
      /** When the post links to the original in its text: "always", "ifCut" or "never". */
      appendUrl: appendUrlOption(),
      /** A post without photos shows a card that links to the original. */
      linkCard: booleanOption(true),
      ...threadOptionFields(),
    },
    { error: "must be an object" },
  )
  .strict();

export type BlueskyOptions = z.output<typeof schema>;

export function parseBlueskyOptions(
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): BlueskyOptions {
  const password = options.password ?? fromEnv(env, "BLUESKY_PASSWORD");
  return parseOptions(blueskyPluginId, schema, { ...options, password });
}
