// The syndication targets Micropub clients may choose from (q=config, q=syndicate-to), and the check
// that a post names only those: a post naming an unknown uid would wait for syndication forever.
import type { SyndicatorInfo, SyndicatorPlugin } from "../contract.ts";
import { badRequest } from "../http-error.ts";

export type SyndicateToEntry = Pick<SyndicatorInfo, "uid" | "name" | "service" | "user">;

export function syndicateToList(syndicators: readonly SyndicatorPlugin[]): SyndicateToEntry[] {
  return syndicators.map(({ info }) => ({
    uid: info.uid,
    name: info.name,
    ...(info.service ? { service: info.service } : {}),
    ...(info.user ? { user: info.user } : {}),
  }));
}

/** Throws 400 unless every value is the uid of a configured target (matched exactly). */
export function checkSyndicationTargets(
  values: readonly unknown[],
  syndicators: readonly SyndicatorPlugin[],
): void {
  const known = new Set(syndicators.map((syndicator) => syndicator.info.uid));
  for (const value of values) {
    if (typeof value !== "string")
      throw badRequest(`mp-syndicate-to values are target uids (text); got ${JSON.stringify(value)}`);
    if (known.has(value)) continue;
    const choices =
      known.size > 0 ? `choose from: ${[...known].join(", ")}` : "this server has none configured";
    throw badRequest(
      `"${value}" is not a syndication target of this server (q=syndicate-to lists them; ${choices})`,
    );
  }
}
