// What the owner types to name their instance — "mastodon.social", a URL of any page on it, or
// their handle "@alice@mastodon.social" — made into the instance's origin. Only the origin is kept:
// a path, a query or a user name typed with it never reaches a request.
import { isIP } from "node:net";

export interface InstanceAddress {
  /** e.g. https://mastodon.social (no trailing slash) */
  origin: string;
  /** The user name of a typed handle, shown back while connecting; the token decides the account. */
  user?: string;
}

export class InstanceAddressError extends Error {
  constructor(
    message: string,
    /** The locale key of the message (locales/*.json). */
    readonly key: string,
  ) {
    super(message);
    this.name = "InstanceAddressError";
  }
}

const hostPattern =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** The instance an input names, or an InstanceAddressError saying what to type instead. */
export function parseInstanceAddress(input: string): InstanceAddress {
  const typed = input.trim();
  const invalid = () =>
    new InstanceAddressError(
      `"${typed.slice(0, 100)}" is not an instance: type its name (mastodon.social), its address (https://mastodon.social) or your handle (@you@mastodon.social)`,
      "accounts.oauth.error.instance",
    );
  if (!typed || typed.length > 300 || /\s/.test(typed)) throw invalid();

  const handle = /^@?([\w.-]+)@([^@/]+)$/.exec(typed);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(typed);
  // An @ in the authority is a user name in the URL, never part of an instance's address.
  const authority = withScheme ? (/^[^:]+:\/\/([^/?#]*)/.exec(typed)?.[1] ?? "") : typed.split(/[/?#]/)[0];
  if (!handle && authority?.includes("@")) throw invalid();
  let url: URL;
  try {
    url = new URL(handle ? `https://${handle[2]}` : withScheme ? typed : `https://${typed}`);
  } catch {
    throw invalid();
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalid();
  if (url.username || url.password) throw invalid();
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (!isIP(hostname) && !hostPattern.test(hostname)) throw invalid();
  return { origin: url.origin, ...(handle?.[1] ? { user: handle[1] } : {}) };
}
