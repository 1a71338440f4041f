// mp-syndicate-thread (decision 0064): a Micropub client chooses, for some of the post's targets, whether a
// long text goes as a thread or as one cut post, as the preview page lets the user choose. Shaped as
// mp-syndicate-text is: one object keyed by target uid, e.g. {"https://mastodon.social/@me": true};
// "on"/"off" (a form's words) are true/false, and "account" goes back to the target's own option.
// It is kept where the page's choice is, never in the post. An unknown uid, or a target that cannot
// make threads, is refused: a choice must not wait unseen.

import { z } from "zod";
import { badRequest } from "../../contract/http-error.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";

export const SYNDICATE_THREAD = "mp-syndicate-thread";
const example = '{"mp-syndicate-thread": {"https://mastodon.social/@me": true}}';

const choice = z
  .union([z.boolean(), z.enum(["on", "off", "true", "false", "account"])])
  .transform((value) => {
    if (value === "account") return null;
    return value === true || value === "on" || value === "true";
  });
const choices = z.record(z.string().min(1), choice);

/** The choices by uid, checked against the server's targets; throws 400 naming what is wrong. */
export function readSyndicateThread(
  values: readonly unknown[],
  syndicators: readonly SyndicatorPlugin[],
): Record<string, boolean | null> {
  const [object, ...more] = values;
  if (typeof object !== "object" || object === null || Array.isArray(object) || more.length > 0)
    throw badRequest(
      `${SYNDICATE_THREAD} must be one object of choices keyed by target uid, e.g. ${example}`,
    );
  const parsed = choices.safeParse(object);
  if (!parsed.success) {
    const uid = parsed.error.issues[0]?.path[0];
    throw badRequest(
      `${SYNDICATE_THREAD} for ${String(uid)} must be true (a thread), false (one post) or "account" (the target's own option)`,
    );
  }
  const known = new Map(syndicators.map((syndicator) => [syndicator.info.uid, syndicator]));
  const unknown = Object.keys(parsed.data).filter((uid) => !known.has(uid));
  if (unknown.length > 0) {
    const targets = [...known.keys()].join(", ") || "none";
    throw badRequest(
      `${SYNDICATE_THREAD} names targets this server does not have: ${unknown.join(", ")} (its targets: ${targets}; see q=syndicate-to)`,
    );
  }
  const threadless = Object.keys(parsed.data).filter((uid) => !known.get(uid)?.threads);
  if (threadless.length > 0)
    throw badRequest(
      `${SYNDICATE_THREAD} names targets that cannot send a thread: ${threadless.map((uid) => known.get(uid)?.info.name ?? uid).join(", ")} (${threadless.join(", ")})`,
    );
  if (Object.keys(parsed.data).length === 0)
    throw badRequest(`${SYNDICATE_THREAD} is empty; e.g. ${example}`);
  return parsed.data;
}
