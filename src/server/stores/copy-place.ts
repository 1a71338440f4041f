// How a post's page names the place a copy is on: by the target it was sent to, as the owner knows
// it ("Mastodon: @me@mastodon.social"), not by the copy's host name, which says neither the service
// nor the account (mastodon.social holds a million accounts). A copy no target claims (one written
// by another tool, or sent to a target since removed) keeps its host name.
import type { SyndicatorInfo } from "../../contract/syndicator.ts";

/** Whether `url` is `base` itself or lies under it as a path: …/@me claims …/@me/1, not …/@meg/1. */
function isUnder(url: URL, base: string): boolean {
  if (!URL.canParse(base)) return false;
  const prefix = new URL(base);
  if (prefix.origin !== url.origin) return false;
  const path = prefix.pathname.endsWith("/") ? prefix.pathname : `${prefix.pathname}/`;
  return `${url.pathname}/`.startsWith(path);
}

/** The name of the place a copy at `copyUrl` is on, from the target whose account URL holds it. */
export function copyPlace(copyUrl: string, targets: readonly SyndicatorInfo[]): string {
  const url = new URL(copyUrl);
  let best: { info: SyndicatorInfo; length: number } | null = null;
  for (const info of targets) {
    for (const base of [info.user?.url, info.uid]) {
      if (!base || !isUnder(url, base)) continue;
      if (!best || base.length > best.length) best = { info, length: base.length };
    }
  }
  if (!best) return url.hostname;
  const { service, user, name } = best.info;
  const account = user?.name ?? name;
  return service && service.name !== account ? `${service.name}: ${account}` : account;
}
