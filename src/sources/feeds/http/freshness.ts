// How long a fetched feed stays fresh: the site's own `Cache-Control: max-age` (less the `Age` a
// cache in between already spent), else its `Expires` (measured against its own `Date`, so a server
// with a wrong clock is read consistently), else the feed's configured interval. What the site says
// is kept within [1 min, 1 h]: never hammered by `no-cache`, never left unread for a day.

export const MIN_FRESH_SECONDS = 60;
export const MAX_FRESH_SECONDS = 3600;

function clamp(seconds: number): number {
  return Math.min(MAX_FRESH_SECONDS, Math.max(MIN_FRESH_SECONDS, seconds));
}

/** The max-age of a Cache-Control header (no-store and no-cache count as 0); undefined without one. */
function maxAgeOf(cacheControl: string | null): number | undefined {
  if (!cacheControl) return undefined;
  let maxAge: number | undefined;
  for (const directive of cacheControl.split(",")) {
    const [rawName, rawValue] = directive.split("=", 2);
    const name = rawName?.trim().toLowerCase();
    if (name === "no-store" || name === "no-cache") return 0;
    if (name === "max-age" && rawValue !== undefined) {
      const value = Number(rawValue.trim().replace(/^"|"$/g, ""));
      if (Number.isFinite(value) && value >= 0) maxAge = value;
    }
  }
  return maxAge;
}

/**
 * Seconds until the next fetch of an answer with these headers, received at `now`.
 *
 * @example
 * freshSeconds(new Headers({ "cache-control": "max-age=30" }), Date.now(), 300); // 60
 */
export function freshSeconds(headers: Headers, now: number, pollSeconds: number): number {
  const maxAge = maxAgeOf(headers.get("cache-control"));
  if (maxAge !== undefined) {
    const age = Number(headers.get("age"));
    return clamp(maxAge - (Number.isFinite(age) && age > 0 ? age : 0));
  }
  const expires = headers.get("expires");
  if (expires !== null) {
    const expiresAt = Date.parse(expires);
    // An invalid date ("0", "-1") means already expired (RFC 9111 5.3).
    if (Number.isNaN(expiresAt)) return clamp(0);
    const date = Date.parse(headers.get("date") ?? "");
    return clamp((expiresAt - (Number.isNaN(date) ? now : date)) / 1000);
  }
  return pollSeconds;
}
