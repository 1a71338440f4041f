// The HTTP Link header (RFC 8288): `<https://hub.example/>; rel="hub", </feed.xml>; rel="self"`.
// Only what WebSub discovery needs: each target with its rel values, resolved against the answer's URL.

export interface WebLink {
  href: string;
  rels: string[];
}

const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;\s]+))/i;

/** Splits the header at the commas between links: not those inside <…> or "…". */
function linkValues(value: string): string[] {
  const parts: string[] = [];
  let current = "";
  let inTarget = false;
  let inQuotes = false;
  for (const character of value) {
    if (character === "<" && !inQuotes) inTarget = true;
    else if (character === ">" && !inQuotes) inTarget = false;
    else if (character === '"' && !inTarget) inQuotes = !inQuotes;
    else if (character === "," && !inTarget && !inQuotes) {
      parts.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  parts.push(current);
  return parts;
}

/**
 * @example
 * parseLinkHeader('<https://hub.example/>; rel="hub"', "https://site.example/feed");
 * // [{ href: "https://hub.example/", rels: ["hub"] }]
 */
export function parseLinkHeader(value: string | null, base: string): WebLink[] {
  if (!value) return [];
  const links: WebLink[] = [];
  for (const part of linkValues(value)) {
    const target = /^\s*<([^>]*)>(.*)$/s.exec(part);
    if (!target) continue;
    const rel = REL.exec(target[2] ?? "");
    const rels = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    if (rels.length === 0) continue;
    try {
      links.push({ href: new URL(target[1] ?? "", base).href, rels });
    } catch {
      // A target that is no URL names nothing.
    }
  }
  return links;
}
