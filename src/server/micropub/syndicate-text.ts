// mp-syndicate-text (decision 0026): a Micropub client gives the post's text for some of its targets, as
// one object keyed by target uid, e.g. {"https://mastodon.social/@me": "Shorter, for Mastodon"}. The
// syndication endpoint sends it instead of the text the target's template makes. Unlike a target
// uid in mp-syndicate-to (kept, shown as "not configured"), a text for an unknown uid is refused:
// words written for one target must not wait unseen under a misspelt name.

import { badRequest } from "../../contract/http-error.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";

export const SYNDICATE_TEXT = "mp-syndicate-text";
const MAX_TEXT_LENGTH = 10_000;
const example = '{"mp-syndicate-text": {"https://mastodon.social/@me": "Text for Mastodon"}}';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The texts by uid, checked against the server's targets; throws 400 naming what is wrong. */
export function readSyndicateText(
  values: readonly unknown[],
  syndicators: readonly SyndicatorPlugin[],
): Record<string, string> {
  const [object, ...more] = values;
  if (!isRecord(object) || more.length > 0)
    throw badRequest(`${SYNDICATE_TEXT} must be one object of texts keyed by target uid, e.g. ${example}`);
  const texts: Record<string, string> = {};
  for (const [uid, text] of Object.entries(object)) {
    if (typeof text !== "string" || !text.trim() || text.length > MAX_TEXT_LENGTH)
      throw badRequest(
        `${SYNDICATE_TEXT} for ${uid} must be a non-empty text of at most ${MAX_TEXT_LENGTH} characters`,
      );
    texts[uid] = text.replace(/\r\n?/g, "\n");
  }
  const known = new Set(syndicators.map((syndicator) => syndicator.info.uid));
  const unknown = Object.keys(texts).filter((uid) => !known.has(uid));
  if (unknown.length > 0) {
    const targets = [...known].join(", ") || "none";
    throw badRequest(
      `${SYNDICATE_TEXT} names targets this server does not have: ${unknown.join(", ")} (its targets: ${targets}; see q=syndicate-to)`,
    );
  }
  if (Object.keys(texts).length === 0) throw badRequest(`${SYNDICATE_TEXT} is empty; e.g. ${example}`);
  return texts;
}
