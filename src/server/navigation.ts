import type { EndpointPlugin, NavigationItem } from "./contract.ts";

export interface NavigationLink {
  href: string;
  /** A locale key path; the layout translates it. */
  text: string;
  current: boolean;
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
    }));
}
