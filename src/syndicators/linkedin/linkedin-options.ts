// Options of @possekit/syndicator-linkedin. A connected account gets them from the Accounts page
// (the OAuth flow knows the person URN and when the token ends); in the config file the access
// token may come from the environment (LINKEDIN_ACCESS_TOKEN).
import { z } from "zod";
import {
  booleanOption,
  fromEnv,
  parseOptions,
  requiredString,
  serviceUrl,
} from "../../contract/options/option-schemas.ts";
import { appendUrlOption, templateOption } from "../shared/copy-template.ts";

export const linkedinPluginId = "syndicator-linkedin";

/**
 * The API version every request names in `LinkedIn-Version` (YYYYMM). LinkedIn keeps a version for
 * at least a year after its release, then answers 426 (learn.microsoft.com/linkedin/marketing/versioning):
 * an owner on an older possekit sets `linkedinVersion` to a newer month.
 */
export const DEFAULT_LINKEDIN_VERSION = "202610";

const schema = z
  .object(
    {
      /** The member's person URN, urn:li:person:{sub}: the `sub` of /v2/userinfo. */
      author: requiredString("a person URN such as urn:li:person:AbC123").refine(
        (urn) => /^urn:li:person:[A-Za-z0-9_-]+$/.test(urn),
        { error: "must be a person URN such as urn:li:person:AbC123" },
      ),
      accessToken: requiredString("a non-empty string", "is required (or set LINKEDIN_ACCESS_TOKEN)"),
      /** The member's name, shown as the target's name. */
      name: z.string({ error: "must be a string" }).trim().min(1).optional(),
      /** Where the REST API answers: https://api.linkedin.com (a sandbox in tests). */
      apiUrl: serviceUrl().default("https://api.linkedin.com"),
      /** `LinkedIn-Version`, a month as YYYYMM. */
      linkedinVersion: z
        .string({ error: "must be a month such as 202610" })
        .trim()
        .regex(/^20\d\d(0[1-9]|1[0-2])$/, { error: "must be a month written YYYYMM, such as 202610" })
        .default(DEFAULT_LINKEDIN_VERSION),
      /** Who sees the posts: everyone, or the member's connections only. */
      visibility: z
        .enum(["PUBLIC", "CONNECTIONS"], { error: 'must be "PUBLIC" or "CONNECTIONS"' })
        .default("PUBLIC"),
      /** When the access token ends (ISO 8601): the page warns 10 days and 1 day before. */
      tokenExpiresAt: z.iso
        .datetime({ error: "must be an ISO 8601 time such as 2026-01-31T12:00:00Z" })
        .optional(),
      /** Add the post's categories as hashtags. */
      includeCategories: booleanOption(true),
      /** The commentary as a nunjucks template of the post; unset: name, else summary, else content. */
      template: templateOption(),
      /** When the commentary links to the post besides the card: "always", "ifCut" or "never". */
      appendUrl: appendUrlOption(),
    },
    { error: "must be an object" },
  )
  .strict();

export type LinkedinOptions = z.output<typeof schema>;

export function parseLinkedinOptions(
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): LinkedinOptions {
  const accessToken = options.accessToken ?? fromEnv(env, "LINKEDIN_ACCESS_TOKEN");
  return parseOptions(linkedinPluginId, schema, { ...options, accessToken });
}
