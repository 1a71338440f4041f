// LinkedIn's "little" text format, in which the Posts API takes `commentary`
// (learn.microsoft.com/linkedin/marketing/community-management/shares/little-text-format): the
// characters \ | { } @ [ ] ( ) < > # * _ ~ are reserved for its elements (mentions, hashtags) and
// must be escaped with a backslash to be read as text. Unescaped, LinkedIn cuts the commentary at
// the first one and still answers 201. A hashtag of the post stays a hashtag: it is written as the
// format's HashtagTemplate, {hashtag|\#|name}.

const reserved = /[\\|{}@[\]()<>#*_~]/g;

/** The text with every reserved character escaped: LinkedIn shows it exactly as given. */
export function escapeLittleText(text: string): string {
  return text.replace(reserved, (character) => `\\${character}`);
}

/** A word starting with # after a space or at the start: what the post means as a hashtag. */
const hashtag = /(^|\s)#([\p{L}\p{N}_]+)/gu;

/**
 * The commentary sent for a copy's text: its hashtags as HashtagTemplates, everything else escaped.
 *
 * @example
 * littleCommentary("Cost (approx.) #Budget") // "Cost \\(approx.\\) {hashtag|\\#|Budget}"
 */
export function littleCommentary(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(hashtag)) {
    const [whole, space = "", name = ""] = match;
    const start = match.index ?? 0;
    out += `${escapeLittleText(text.slice(last, start))}${space}{hashtag|\\#|${escapeLittleText(name)}}`;
    last = start + whole.length;
  }
  return out + escapeLittleText(text.slice(last));
}
