// Options of @possekit/syndicator-internet-archive. The S3-style keys (https://archive.org/account/s3.php)
// come from the environment unless given; both or neither, since one alone cannot sign in.
import { z } from "zod";
import { fromEnv, parseOptions, positiveInteger, serviceUrl } from "../../contract/options/option-schemas.ts";

export const internetArchivePluginId = "syndicator-internet-archive";

const key = (variable: string) =>
  z
    .string({ error: `must be a string (or set ${variable})` })
    .trim()
    .min(1, { error: "must not be empty" })
    .optional();

const schema = z
  .object(
    {
      accessKey: key("INTERNET_ARCHIVE_ACCESS_KEY"),
      secretKey: key("INTERNET_ARCHIVE_SECRET_KEY"),
      /** Save Page Now's address; only a test or a sandbox changes it. */
      serviceUrl: serviceUrl().default("https://web.archive.org"),
      /** How long to wait between checks of a capture in progress. */
      pollIntervalMs: positiveInteger(3000),
      /** How long one capture may take: Save Page Now allows up to two minutes, and polling more. */
      timeoutMs: positiveInteger(150_000),
    },
    { error: "must be an object" },
  )
  .strict()
  .superRefine((options, context) => {
    if (Boolean(options.accessKey) === Boolean(options.secretKey)) return;
    const missing = options.accessKey ? "secretKey" : "accessKey";
    const variable = options.accessKey ? "INTERNET_ARCHIVE_SECRET_KEY" : "INTERNET_ARCHIVE_ACCESS_KEY";
    context.addIssue({
      code: "custom",
      path: [missing],
      message: `is required when the other key is given (or set ${variable})`,
    });
  });

export type InternetArchiveOptions = z.output<typeof schema>;

export function parseInternetArchiveOptions(
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): InternetArchiveOptions {
  return parseOptions(internetArchivePluginId, schema, {
    ...options,
    accessKey: options.accessKey ?? fromEnv(env, "INTERNET_ARCHIVE_ACCESS_KEY"),
    secretKey: options.secretKey ?? fromEnv(env, "INTERNET_ARCHIVE_SECRET_KEY"),
  });
}
