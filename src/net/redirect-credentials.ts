// Credentials belong to the origin they were given for. A redirect to another origin (another
// scheme, host or port; https to http on the same host too) is followed without them, as browsers
// and Node's fetch do (Fetch standard, HTTP-redirect fetch, step 13), so that a hostile or
// compromised server cannot collect the user's token by answering "302, over there".

/** The headers that always carry a credential. */
export const CREDENTIAL_HEADERS: readonly string[] = ["authorization", "cookie", "proxy-authorization"];

/** Whether two URLs share an origin: scheme, host and port (a default port counts as written). */
export function sameOrigin(from: URL, to: URL): boolean {
  return from.protocol === to.protocol && from.hostname === to.hostname && from.port === to.port;
}

/**
 * The headers for the next hop of a redirect from `from` to `to`: unchanged within the origin,
 * without any credential (the standard ones and the caller's `extra` names, any case) when it leaves.
 */
export function headersForRedirect(
  headers: Readonly<Record<string, string>>,
  from: URL,
  to: URL,
  extra: readonly string[] = [],
): Record<string, string> {
  if (sameOrigin(from, to)) return { ...headers };
  const dropped = new Set([...CREDENTIAL_HEADERS, ...extra.map((name) => name.toLowerCase())]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !dropped.has(name.toLowerCase())));
}
