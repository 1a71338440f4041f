// Where a post from elsewhere comes from, as the page marks it (decision 0040): the kind of source
// and its name, read from the post's origin (`feed:<key>`, `micropub:<name>`; src/contract/
// known-posts.ts). The site's own posts carry no origin and no mark.

export interface OriginView {
  /** The origin exactly as recorded: what the list's `origin` filter takes. */
  origin: string;
  /** Picks the page's wording; an origin of a kind this page does not know is shown as it is. */
  kind: "feed" | "micropub" | "other";
  name: string;
  /** The page's list of every post with a target from there. */
  href: string;
}

const KINDS = new Set<OriginView["kind"]>(["feed", "micropub"]);

export function originView(origin: string | undefined, mountPath: string): OriginView | null {
  if (!origin) return null;
  const href = `${mountPath}?${new URLSearchParams({ state: "all", origin })}`;
  const colon = origin.indexOf(":");
  const kind = origin.slice(0, Math.max(colon, 0));
  const name = origin.slice(colon + 1);
  if (colon > 0 && name && KINDS.has(kind as OriginView["kind"]))
    return { origin, kind: kind as OriginView["kind"], name, href };
  return { origin, kind: "other", name: origin, href };
}
