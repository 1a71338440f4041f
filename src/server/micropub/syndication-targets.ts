// The syndication targets Micropub clients may choose from (q=config, q=syndicate-to), and the check
// of what a post names.

import { badRequest } from "../../contract/http-error.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { SyndicatorInfo } from "../../contract/syndicator.ts";

export type SyndicateToEntry = Pick<SyndicatorInfo, "uid" | "name" | "service" | "user">;

export function syndicateToList(syndicators: readonly SyndicatorPlugin[]): SyndicateToEntry[] {
  return syndicators.map(({ info }) => ({
    uid: info.uid,
    name: info.name,
    ...(info.service ? { service: info.service } : {}),
    ...(info.user ? { user: info.user } : {}),
  }));
}

/**
 * Throws 400 unless every value is a uid (text). A uid this server does not know (a client with a
 * stale list, a target removed from the configuration) is kept with the post rather than losing
 * the post: the Syndicate page shows it as "target not configured".
 */
export function checkSyndicationTargets(values: readonly unknown[]): void {
  for (const value of values) {
    if (typeof value !== "string")
      throw badRequest(`mp-syndicate-to values are target uids (text); got ${JSON.stringify(value)}`);
  }
}
