// Post content may be HTML only. A status is plain text, so paragraphs become blank lines, line
// breaks stay, and a link whose text hides its address keeps the address after the text.

const namedEntities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return namedEntities[name.toLowerCase()] ?? whole;
  });
}

/** An attribute's raw value in an HTML tag (entities still encoded), or undefined. */
export function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match?.[1] ?? match?.[2] ?? match?.[3];
}

export function htmlToText(html: string): string {
  const withLinks = html.replace(
    /<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi,
    (_whole, attributes: string, inner: string) => {
      // Entities stay encoded here: the whole text is decoded once, at the end.
      const text = inner.replace(/<[^>]+>/g, "").trim();
      const href = attribute(` ${attributes}`, "href")?.trim();
      if (!href || !/^https?:\/\//i.test(href)) return text;
      const shown = decodeEntities(text);
      const address = decodeEntities(href);
      if (!shown || shown === address || shown === address.replace(/^https?:\/\//i, "")) return href;
      return `${text} (${href})`;
    },
  );
  const text = withLinks
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(/<\/(p|div|h[1-6]|blockquote|ul|ol|pre|figure)\s*>/gi, "\n\n")
    .replace(/<[^>]+>/g, "");
  return decodeEntities(text)
    .replace(/[ \t\u00a0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
