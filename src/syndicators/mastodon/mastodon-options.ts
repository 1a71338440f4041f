// Options of @possekit/syndicator-mastodon. The access token comes from the environment
// (MASTODON_ACCESS_TOKEN) unless given; without one the plug-in refuses to start, so a missing
// secret is found when the server starts rather than when the first post is sent.
import { z } from "zod";
import {
  booleanOption,
  fromEnv,
  optionalPositiveInteger,
  parseOptions,
  requiredString,
  serviceUrl,
} from "../../contract/options/option-schemas.ts";
import { appendUrlOption, templateOption } from "../shared/copy-template.ts";
import { threadOptionFields } from "../shared/thread-options.ts";
import { mastodonSoftwareNames } from "./mastodon-software.ts";

export const mastodonPluginId = "syndicator-mastodon";

const schema = z
  .object(
    {
      /** The instance, e.g. https://mastodon.social */
      url: serviceUrl(),
      /** The account's user name on that instance, e.g. "alice" (a leading @ is dropped). */
      user: requiredString("a Mastodon user name such as alice")
        .transform((user) => user.replace(/^@/, "").split("@")[0] ?? "")
        .refine((user) => /^\w+$/.test(user), { error: "must be a Mastodon user name such as alice" }),
      accessToken: requiredString("a non-empty string", "is required (or set MASTODON_ACCESS_TOKEN)"),
      /**
       * The server software speaking Mastodon's API there: found when the account is connected from
       * the page; in the configuration file, "mastodon" unless written.
       */
      software: z
        .enum(mastodonSoftwareNames, {
          error: `must be one of ${mastodonSoftwareNames.map((name) => `"${name}"`).join(", ")}`,
        })
        .default("mastodon"),
      /** Overrides the limit the instance announces in /api/v2/instance (500 on most). */
      characterLimit: optionalPositiveInteger(),
      /** Who sees the copies: Mastodon's own visibilities, short of direct messages. */
      visibility: z
        .enum(["public", "unlisted", "private"], { error: 'must be "public", "unlisted" or "private"' })
        .default("public"),
      /** The copies' language (ISO 639), when the post does not name its own with `lang`. */
      language: z
        .string({ error: "must be a language code such as en" })
        .trim()
        .regex(/^[a-z]{2,3}$/i, { error: "must be a two- or three-letter ISO 639 language code such as en" })
        .transform((code) => code.toLowerCase())
        .optional(),
      /** Link every status to the post, not only those that had to be cut. */
      includePermalink: booleanOption(false),
      /** Add the post's categories as hashtags. */
      includeCategories: booleanOption(true),
      /** The status's text as a nunjucks template of the post; unset: name, else summary, else content. */
      template: templateOption(),
      /** When the status links to the post: "always", "ifCut" or "never". */
      appendUrl: appendUrlOption(),
      ...threadOptionFields(),
    },
    { error: "must be an object" },
  )
  .strict();

export type MastodonOptions = z.output<typeof schema>;

export function parseMastodonOptions(
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): MastodonOptions {
  const accessToken = options.accessToken ?? fromEnv(env, "MASTODON_ACCESS_TOKEN");
  return parseOptions(mastodonPluginId, schema, { ...options, accessToken });
}
