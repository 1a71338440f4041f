// A copy's text as the service shows it (decision 0046): links shortened and clickable, hashtags and
// mentions marked, line breaks kept. The services make the same three kinds of rich text from plain
// text (Mastodon's formatter, Bluesky's facet detection), so one reading serves both.

export interface ShownSegment {
  kind: "text" | "link" | "tag" | "mention";
  text: string;
  /** A link's address (links only: a tag's or a mention's page depends on who reads it). */
  href?: string;
}

// A link runs to the next space; punctuation that ends a sentence is not part of it.
const LINK = /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)'\]]/gu;
// A hashtag starts a word and has at least one letter (Mastodon: "#1" is not a tag).
const TAG = /(?<![\p{L}\p{N}_/#&])#[\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*/gu;
// @user, @user@instance.example or @handle.bsky.social, starting a word.
const MENTION =
  /(?<![\p{L}\p{N}_/@])@[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*(?:@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+)?/gu;

/** Mastodon shows a link without its scheme and "www.", cut after 30 characters. */
export const LINK_SHOWN_LENGTH = 30;

export function shownLink(url: string): string {
  const bare = url.replace(/^https?:\/\/(www\.)?/u, "");
  return bare.length > LINK_SHOWN_LENGTH ? `${bare.slice(0, LINK_SHOWN_LENGTH)}…` : bare;
}

interface Match {
  start: number;
  end: number;
  segment: ShownSegment;
}

function matches(text: string): Match[] {
  const found: Match[] = [];
  for (const m of text.matchAll(LINK))
    found.push({
      start: m.index,
      end: m.index + m[0].length,
      segment: { kind: "link", text: shownLink(m[0]), href: m[0] },
    });
  const insideLink = (index: number) =>
    found.some((f) => f.segment.kind === "link" && index >= f.start && index < f.end);
  for (const [pattern, kind] of [
    [TAG, "tag"],
    [MENTION, "mention"],
  ] as const)
    for (const m of text.matchAll(pattern))
      if (!insideLink(m.index))
        found.push({ start: m.index, end: m.index + m[0].length, segment: { kind, text: m[0] } });
  return found.sort((a, b) => a.start - b.start);
}

/** The text cut into plain runs, links, hashtags and mentions, in order. */
export function shownCopy(text: string): ShownSegment[] {
  const segments: ShownSegment[] = [];
  let at = 0;
  for (const match of matches(text)) {
    if (match.start < at) continue;
    if (match.start > at) segments.push({ kind: "text", text: text.slice(at, match.start) });
    segments.push(match.segment);
    at = match.end;
  }
  if (at < text.length) segments.push({ kind: "text", text: text.slice(at) });
  return segments;
}
