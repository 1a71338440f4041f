// Options of one remote-Micropub source, an entry of the endpoint's `sources`:
//
//   sources: [{ type: "micropub", name: "blog", endpoint: "https://blog.example/micropub",
//               tokenEnv: "BLOG_MICROPUB_TOKEN", pollSeconds: 300 }]
//
// Each mistake is one line naming the option and what to write instead.
import { z } from "zod";
import { fromEnv, serviceUrl } from "../../contract/options/option-schemas.ts";

export const DEFAULT_TOKEN_ENV = "MICROPUB_TOKEN";

const whole = (min: number, max: number, example: string) => {
  const message = `must be a whole number from ${min} to ${max}, such as ${example}`;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(min, { error: message })
    .max(max, { error: message });
};

export const micropubSourceOptionsSchema = z.strictObject(
  {
    type: z.literal("micropub", { error: 'must be "micropub", the only kind of source so far' }),
    /** Names the source: its posts' origin is `micropub:<name>`; unique among the sources. */
    name: z.string({ error: 'must be a short name, such as "blog"' }).regex(/^[a-z0-9][a-z0-9-]{0,39}$/, {
      error: 'must be a short name of lowercase letters, digits and "-", such as "blog"',
    }),
    /** The remote server's Micropub endpoint (https; http only on this machine). */
    endpoint: serviceUrl(),
    /** The environment variable holding a token the remote issued (scopes: create update). */
    tokenEnv: z
      .string({ error: `must name an environment variable, such as "${DEFAULT_TOKEN_ENV}"` })
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
        error: `must name an environment variable, such as "${DEFAULT_TOKEN_ENV}"`,
      })
      .default(DEFAULT_TOKEN_ENV),
    /** Seconds between two polls of the remote's posts. */
    pollSeconds: whole(30, 86_400, "300 (the default)").default(300),
    /** How many of the newest posts each poll reads; an edit of an older post is not seen. */
    recentPosts: whole(1, 10_000, "200 (the default)").default(200),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `has unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; ` +
          "a Micropub source takes type, name, endpoint, tokenEnv, pollSeconds and recentPosts"
        : 'must be an object, such as { type: "micropub", name: "blog", endpoint: "https://blog.example/micropub" }',
  },
);

export type MicropubSourceOptions = z.output<typeof micropubSourceOptionsSchema>;

/** The origin its posts are recorded under. */
export const micropubOrigin = (name: string) => `micropub:${name}`;

/**
 * The problems no schema of one entry sees: two sources of one name, a token variable not set.
 * Each is [path under the sources list, message].
 */
export function micropubSourceProblems(
  sources: readonly MicropubSourceOptions[],
  env: NodeJS.ProcessEnv,
): Array<[(string | number)[], string]> {
  const problems: Array<[(string | number)[], string]> = [];
  const names = new Set<string>();
  sources.forEach((source, index) => {
    if (names.has(source.name))
      problems.push([
        [index, "name"],
        `"${source.name}" names another source already; give each its own name`,
      ]);
    names.add(source.name);
    if (!fromEnv(env, source.tokenEnv))
      problems.push([
        [index, "tokenEnv"],
        `names ${source.tokenEnv}, which is not set: set it to a token ${source.endpoint} issued with the scopes create and update`,
      ]);
  });
  return problems;
}
