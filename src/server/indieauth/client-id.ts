// Client identifiers and redirect URIs as IndieAuth §3.2 and §4.2.2 define them: a client is named by
// a URL, an https one (or a loopback http one while developing), and a code is only ever sent to a
// redirect URI on the client's own host or one the client lists itself.

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export const isLoopbackHost = (hostname: string) => LOOPBACK_HOSTS.has(hostname);

/** The client_id as a URL, or why it is not one IndieAuth allows. */
export function parseClientId(value: string): URL | string {
  if (value.length > 2048) return "client_id is longer than 2048 characters";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "client_id must be an absolute URL, e.g. https://app.example/";
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))
    return "client_id must be an https URL (http only on a loopback address such as 127.0.0.1)";
  if (url.hash || value.includes("#")) return "client_id must not contain a fragment";
  if (url.username || url.password) return "client_id must not contain a user name or password";
  if (/\/\.{1,2}(\/|$|\?)/.test(value.replace(/^[a-z]+:\/\/[^/]*/i, "")))
    return "client_id must not contain . or .. path segments";
  const host = url.hostname;
  if ((IPV4.test(host) || host.startsWith("[")) && !isLoopbackHost(host))
    return "client_id must name a host by its domain name (of IP addresses only 127.0.0.1 and [::1])";
  return url;
}

/** The redirect_uri as a URL, or why it is not one. */
export function parseRedirectUri(value: string): URL | string {
  if (value.length > 2048) return "redirect_uri is longer than 2048 characters";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "redirect_uri must be an absolute URL";
  }
  if (url.hash || value.includes("#")) return "redirect_uri must not contain a fragment";
  if (["javascript:", "data:", "file:", "vbscript:", "blob:"].includes(url.protocol))
    return `redirect_uri must not be a ${url.protocol} URL`;
  return url;
}

/** Scheme, host and port the same: the client's own redirect URI, needing no metadata to trust it. */
export function sameOrigin(redirectUri: URL, clientId: URL): boolean {
  return (
    redirectUri.protocol === clientId.protocol &&
    redirectUri.hostname === clientId.hostname &&
    redirectUri.port === clientId.port
  );
}
