// Finding the links in plain text, as Mastodon and Bluesky clients do: an http(s) address runs to
// the next space, without the punctuation that ends the sentence around it.

export interface FoundUrl {
  url: string;
  /** UTF-16 index of the first character. */
  start: number;
  /** UTF-16 index after the last character. */
  end: number;
}

const candidate = /\bhttps?:\/\/[^\s<>"`]+/gi;

function trimTrailingPunctuation(url: string): string {
  let end = url.length;
  for (;;) {
    const last = url[end - 1];
    if (last === undefined) break;
    if (".,;:!?'\"*".includes(last)) {
      end--;
      continue;
    }
    // A closing bracket belongs to the URL only when the URL opened one (Wikipedia-style).
    if (last === ")" || last === "]") {
      const open = last === ")" ? "(" : "[";
      const slice = url.slice(0, end);
      if (slice.split(open).length - 1 < slice.split(last).length - 1) {
        end--;
        continue;
      }
    }
    break;
  }
  return url.slice(0, end);
}

export function findUrls(text: string): FoundUrl[] {
  const found: FoundUrl[] = [];
  for (const match of text.matchAll(candidate)) {
    const url = trimTrailingPunctuation(match[0]);
    // "https://" alone is not a link.
    if (!/^https?:\/\/[^/\s]+\.[^/\s]|^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])/i.test(url)) continue;
    found.push({ url, start: match.index, end: match.index + url.length });
  }
  return found;
}
