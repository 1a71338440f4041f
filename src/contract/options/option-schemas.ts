// Plug-in options come from the user's config file and the environment: they are validated once,
// at construction, and every refusal names the plug-in and the option so the user knows what to fix.
import { z } from "zod";
import { OptionsError } from "./options-error.ts";

/** Hosts where plain http is acceptable: local sandboxes and test fakes, never the internet. */
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isServiceUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && loopbackHosts.has(url.hostname);
}

/**
 * A required string option, with "is required" rather than zod's wording. `missing` says how to
 * give it, e.g. "is required (or set MASTODON_ACCESS_TOKEN)".
 */
export const requiredString = (what = "a non-empty string", missing = "is required") =>
  z
    .string({ error: (issue) => (issue.input === undefined ? missing : `must be ${what}`) })
    .trim()
    .min(1, { error: `must be ${what}` });

/**
 * An absolute https URL without a trailing slash. Plain http is accepted only for loopback hosts,
 * so the local sandbox and the test fakes can stand in for the real service.
 */
export const serviceUrl = () =>
  requiredString("an absolute https URL")
    .refine(isServiceUrl, { error: "must be an absolute https URL" })
    .transform((value) => value.replace(/\/+$/, ""));

export const booleanOption = (fallback: boolean) =>
  z.boolean({ error: "must be true or false" }).default(fallback);

const wholeNumberAboveZero = () =>
  z
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number" })
    .positive({ error: "must be greater than 0" });

export const positiveInteger = (fallback: number) => wholeNumberAboveZero().default(fallback);

/** A whole number above 0, or nothing (the plug-in then finds the value itself). */
export const optionalPositiveInteger = () => wholeNumberAboveZero().optional();

/** The value of an environment variable, or undefined when unset or blank. */
export function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function describeIssue(pluginId: string, issue: z.core.$ZodIssue): string {
  // A nested object's own message (e.g. which options it has) says more than the bare keys.
  if (issue.code === "unrecognized_keys" && issue.path.length === 0) {
    const keys = issue.keys.map((key) => `"${key}"`).join(", ");
    return `${pluginId}: unknown option ${keys}`;
  }
  const path = issue.path.map(String).join(".");
  return path ? `${pluginId}: option "${path}" ${issue.message}` : `${pluginId}: options ${issue.message}`;
}

/** Parses options or throws an Error listing every problem, one a line. */
export function parseOptions<Schema extends z.ZodType>(
  pluginId: string,
  schema: Schema,
  input: unknown,
): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new OptionsError(
    result.error.issues.map((issue) => describeIssue(pluginId, issue)).join("\n"),
    result.error.issues,
    schema,
  );
}
