// What a browser sends and sees: request headers of a page load, and the navigation of a page.

/** The Accept header of a browser loading a page. */
export const PAGE_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

export function browser(extra: Record<string, string> = {}): Record<string, string> {
  return { accept: PAGE_ACCEPT, ...extra };
}

export interface NavLink {
  href: string;
  text: string;
  current: boolean;
}

/** The links of the layout's main navigation, or null when the page has none. */
export function navigationOf(html: string): NavLink[] | null {
  const nav = /<nav[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1];
  if (nav === undefined) return null;
  return [...nav.matchAll(/<a href="([^"]*)"([^>]*)>([^<]*)<\/a>/g)].map((match) => ({
    href: match[1] ?? "",
    text: (match[3] ?? "").trim(),
    current: /aria-current="page"/.test(match[2] ?? ""),
  }));
}

/** The value of a Set-Cookie header for `name`, split into its value and lower-cased attributes. */
export function cookieFrom(response: Response, name: string): { value: string; attributes: string[] } | null {
  const header = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  if (!header) return null;
  const [pair = "", ...attributes] = header.split(";").map((part) => part.trim());
  return { value: pair.slice(name.length + 1), attributes: attributes.map((a) => a.toLowerCase()) };
}
