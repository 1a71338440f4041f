// A plain-text rendering of HTML content, for JF2's `content.text` when a client sends only HTML
// (syndication targets such as Mastodon and Bluesky take text). Not a sanitizer: the result is text.

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return safeCodePoint(Number.parseInt(name.slice(2), 16), entity);
    if (name.startsWith("#")) return safeCodePoint(Number.parseInt(name.slice(1), 10), entity);
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
}

function safeCodePoint(codePoint: number, fallback: string): string {
  return Number.isInteger(codePoint) && codePoint > 0 && codePoint <= 0x10ffff
    ? String.fromCodePoint(codePoint)
    : fallback;
}

export function htmlToText(html: string): string {
  const withBreaks = html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|li|h[1-6]|blockquote|pre)\s*>/gi, "\n\n");
  const text = decodeEntities(withBreaks.replace(/<[^>]*>/g, ""));
  return text
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
