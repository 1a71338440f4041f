import type { EndpointPlugin, NavigationItem } from "../contract/plugin.ts";

export interface NavigationLink {
  href: string;
  /** A locale key path; the layout translates it. */
  text: string;
  current: boolean;
  /** Filled in by withBadges on signed-in pages. */
  badge?: { count: number; text: string };
  /** Where the badge's count comes from (not rendered). */
  source?: NavigationItem["badge"];
}

/** Every endpoint's items (an object or an array), without those needing a database when there is none. */
export function navigationFor(
  endpoints: readonly EndpointPlugin[],
  path: string,
  hasDatabase: boolean,
): NavigationLink[] {
  const items: NavigationItem[] = endpoints.flatMap((endpoint) =>
    endpoint.navigationItems === undefined
      ? []
      : Array.isArray(endpoint.navigationItems)
        ? endpoint.navigationItems
        : [endpoint.navigationItems],
  );
  return items
    .filter((item) => hasDatabase || !item.requiresDatabase)
    .map((item) => ({
      href: item.href,
      text: item.text,
      current: path === item.href || path.startsWith(item.href.endsWith("/") ? item.href : `${item.href}/`),
      ...(item.badge ? { source: item.badge } : {}),
    }));
}

/**
 * The links with their badges counted (one query each, on signed-in pages only). A count that
 * fails leaves its badge out rather than the page.
 */
export async function withBadges(links: readonly NavigationLink[]): Promise<NavigationLink[]> {
  return Promise.all(
    links.map(async (link) => {
      if (!link.source) return link;
      try {
        const count = await link.source.count();
        return count > 0 ? { ...link, badge: { count, text: link.source.text } } : link;
      } catch {
        return link;
      }
    }),
  );
}
