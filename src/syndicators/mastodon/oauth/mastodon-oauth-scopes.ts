// The narrowest scopes that let possekit do what a Mastodon copy needs, chosen from the scopes the
// instance lists (Mastodon's OAuth metadata, scopes_supported). Each need names its scopes narrowest
// first; Mastodon's scopes are hierarchical ("write" covers "write:statuses", docs: api/oauth-scopes).
// The scopes each call needs are those its controller names (app/controllers/api/v1/…).

import type { MastodonSoftware } from "../mastodon-software.ts";

interface Need {
  what: string;
  /** Narrowest first. */
  scopes: readonly string[];
}

export const mastodonNeeds: readonly Need[] = [
  // GET /api/v1/accounts/verify_credentials: "profile" (Mastodon 4.3+) reaches only this call.
  { what: "read the connected account", scopes: ["profile", "read:accounts", "read"] },
  // POST /api/v1/statuses, PUT and DELETE /api/v1/statuses/:id, reblog and unreblog.
  { what: "post, edit, delete and boost statuses", scopes: ["write:statuses", "write"] },
  // POST /api/v2/media, GET /api/v1/media/:id.
  { what: "upload photos", scopes: ["write:media", "write"] },
  // POST /api/v1/statuses/:id/favourite and unfavourite: a like copied from the site.
  { what: "like statuses", scopes: ["write:favourites", "write"] },
  // GET /api/v1/statuses/:id sent with a token: its media when a copy is edited.
  { what: "read a status back", scopes: ["read:statuses", "read"] },
  // GET /api/v2/search?resolve=true: the status a reply, like or boost is about.
  { what: "find the status a reply, like or boost is about", scopes: ["read:search", "read"] },
];

/**
 * Mastodon before 4.3 publishes no metadata; every Mastodon since 2.4.3 knows the granular scopes,
 * though not "profile".
 */
const withoutMetadata = [
  "read:accounts",
  "write:statuses",
  "write:media",
  "write:favourites",
  "read:statuses",
  "read:search",
];

export class ScopeChoiceError extends Error {
  constructor(readonly missing: string[]) {
    super(`The instance offers no scope that lets possekit ${missing.join(", ")}`);
    this.name = "ScopeChoiceError";
  }
}

/**
 * The coarse scopes every server speaking Mastodon's API knows. Pixelfed checks only these
 * (ApiV1Controller: tokenCan('read') / tokenCan('write'); its Passport scopes are read, write,
 * follow, push); GoToSocial, Akkoma and Pleroma get them when they list no scopes, or list scopes
 * that do not cover each need.
 */
const coarse = ["read", "write"];

/** The scopes to register and ask for, in a stable order; the instance's list when it has one. */
export function chooseScopes(
  supported: readonly string[] | undefined,
  software: MastodonSoftware = "mastodon",
): string[] {
  if (software === "pixelfed") return [...coarse];
  if (software !== "mastodon") {
    if (!supported) return [...coarse];
    try {
      return chooseScopes(supported);
    } catch (error) {
      if (error instanceof ScopeChoiceError) return [...coarse];
      throw error;
    }
  }
  if (!supported) return [...withoutMetadata];
  const chosen: string[] = [];
  const missing: string[] = [];
  for (const need of mastodonNeeds) {
    const scope = need.scopes.find((candidate) => supported.includes(candidate));
    if (!scope) missing.push(need.what);
    else if (!chosen.includes(scope)) chosen.push(scope);
  }
  if (missing.length > 0) throw new ScopeChoiceError(missing);
  // A broad scope chosen for one need covers the granular ones chosen for others.
  return chosen.filter((scope) => !chosen.includes(scope.split(":")[0] ?? "") || !scope.includes(":"));
}
