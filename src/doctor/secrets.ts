// SECRET signs every session and token; WEBHOOK_SECRET is what a deploy webhook proves it knows.
// A short one, or one of few different characters, can be guessed. NODE_ENV=production is what
// makes the server refuse to start without them.
import { PACKAGE_NAME } from "../plugin/endpoint-syndicate.ts";
import type { Check, Problem } from "./problem.ts";

const MAKE_ONE = "openssl rand -base64 32";

/** Why `value` is weak, or null when it is not. */
export function weakness(value: string, least: number): string | null {
  if (value.length < least) return `only ${value.length} characters`;
  if (new Set(value).size < 10) return `only ${new Set(value).size} different characters`;
  return null;
}

export const secrets: Check = ({ config, env }) => {
  const problems: Problem[] = [];
  if (env.NODE_ENV !== "production")
    problems.push({
      option: "NODE_ENV",
      problem: `${env.NODE_ENV ? `is ${env.NODE_ENV}` : "not set"}, so error pages show details and a missing SECRET or PASSWORD is made up instead of refused`,
      instead: "set NODE_ENV=production in the service's environment",
    });
  if (!env.SECRET)
    problems.push({
      option: "SECRET",
      problem: `not set, so a secret kept in ${config.application.dataDir}/secret signs sessions and tokens`,
      instead: `set SECRET to a long random string (${MAKE_ONE}) in the service's environment`,
    });
  else {
    const weak = weakness(env.SECRET, 32);
    if (weak)
      problems.push({
        option: "SECRET",
        problem: `weak (${weak})`,
        instead: `set SECRET to at least 32 random characters (${MAKE_ONE})`,
      });
  }
  if (!env.PASSWORD)
    problems.push({
      option: "PASSWORD",
      problem: `not set, so the sign-in password is the one kept in ${config.application.dataDir}/password`,
      instead: "set PASSWORD in the service's environment (at least 12 characters)",
    });
  else if (env.PASSWORD.length < 12)
    problems.push({
      option: "PASSWORD",
      problem: `weak (only ${env.PASSWORD.length} characters)`,
      instead: "set PASSWORD to at least 12 characters",
    });
  // The endpoint always answers deploy webhooks (its `webhook` options have defaults).
  if (config.file.plugins.includes(PACKAGE_NAME) && !env.WEBHOOK_SECRET)
    problems.push({
      option: "WEBHOOK_SECRET",
      problem: "not set, so no deploy webhook can be verified and every one is refused",
      instead: `set WEBHOOK_SECRET (${MAKE_ONE}) and give the same secret to the service that sends them`,
    });
  else if (env.WEBHOOK_SECRET) {
    const weak = weakness(env.WEBHOOK_SECRET, 32);
    if (weak)
      problems.push({
        option: "WEBHOOK_SECRET",
        problem: `weak (${weak})`,
        instead: `set WEBHOOK_SECRET to at least 32 random characters (${MAKE_ONE})`,
      });
  }
  return problems;
};
