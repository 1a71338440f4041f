// Options of @possekit/syndicator-threads. An account connected from the Accounts page gets them
// from the OAuth flow (src/syndicators/threads/oauth); in the config file, the long-lived token comes
// from THREADS_ACCESS_TOKEN unless given.
import { z } from "zod";
import {
  booleanOption,
  fromEnv,
  parseOptions,
  requiredString,
  serviceUrl,
} from "../../contract/options/option-schemas.ts";
import { appendUrlOption, templateOption } from "../shared/copy-template.ts";

export const threadsPluginId = "syndicator-threads";
export const THREADS_API_URL = "https://graph.threads.net/v1.0";

const schema = z
  .object(
    {
      /** The Threads user id the token belongs to (GET /me answers it). */
      userId: requiredString("the account's numeric Threads user id").refine((id) => /^\d+$/.test(id), {
        error: "must be the account's numeric Threads user id, such as 17841400000000001",
      }),
      /** The account's handle, without @. */
      username: requiredString("a Threads user name such as alice").transform((name) =>
        name.replace(/^@/, ""),
      ),
      accessToken: requiredString("a non-empty string", "is required (or set THREADS_ACCESS_TOKEN)"),
      /** When the token was obtained (ISO 8601): its 60 days count from then. */
      tokenIssuedAt: z.iso
        .datetime({ error: "must be an ISO 8601 time such as 2026-11-28T10:00:00Z" })
        .optional(),
      /** The Graph API's base, with its version; another only for a stand-in (dev/sandbox). */
      apiUrl: serviceUrl().default(THREADS_API_URL),
      /** A text-only post gets the post's link as its link preview (link_attachment). */
      linkAttachment: booleanOption(true),
      /** Link every post to the original, not only those that had to be cut. */
      includePermalink: booleanOption(false),
      template: templateOption(),
      appendUrl: appendUrlOption(),
    },
    { error: "must be an object" },
  )
  .strict();

export type ThreadsOptions = z.output<typeof schema>;

export function parseThreadsOptions(
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): ThreadsOptions {
  const accessToken = options.accessToken ?? fromEnv(env, "THREADS_ACCESS_TOKEN");
  return parseOptions(threadsPluginId, schema, { ...options, accessToken });
}
