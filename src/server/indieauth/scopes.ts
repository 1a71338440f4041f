// The scopes an IndieAuth client may ask for: those the Micropub endpoint and the syndication
// endpoint check. Anything else a client asks for is not offered, so never granted.

export const SUPPORTED_SCOPES = ["create", "update", "delete", "draft", "media"] as const;
export type SupportedScope = (typeof SUPPORTED_SCOPES)[number];

const supported = new Set<string>(SUPPORTED_SCOPES);
/** Scopes of Micropub's early days, still sent by older clients. */
const ALIASES: Record<string, SupportedScope> = { post: "create" };

/** Splits a scope parameter into the scopes offered here and those that are not. */
export function readScopes(value: string | undefined): { offered: SupportedScope[]; unknown: string[] } {
  const offered = new Set<SupportedScope>();
  const unknown = new Set<string>();
  for (const word of (value ?? "").split(/\s+/).filter(Boolean)) {
    const scope = ALIASES[word] ?? word;
    if (supported.has(scope)) offered.add(scope as SupportedScope);
    else unknown.add(word);
  }
  return {
    offered: SUPPORTED_SCOPES.filter((scope) => offered.has(scope)),
    unknown: [...unknown].slice(0, 20),
  };
}
