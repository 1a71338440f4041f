// How LinkedIn shows a commentary written in its "little" text format
// (learn.microsoft.com/linkedin/marketing/community-management/shares/little-text-format): a
// backslash makes the next character text; {hashtag|\#|name} is a hashtag and @[Name](urn:…) a
// mention. A reserved character (\ | { } @ [ ] ( ) < > # * _ ~) left unescaped is not text: LinkedIn
// answers 201 and the post's text ends there (the doc's note "must be escaped to be treated as
// plaintext"; the cut is what clients report, e.g. github.com/apoorvdarshan/crossposter v1.1.5).

const reserved = new Set(["\\", "|", "{", "}", "@", "[", "]", "(", ")", "<", ">", "#", "*", "_", "~"]);

/** The text a reader sees, and whether it was cut at an unescaped reserved character. */
export function showLittle(commentary: string): { text: string; cut: boolean } {
  let text = "";
  let at = 0;
  while (at < commentary.length) {
    const character = commentary[at] as string;
    if (character === "\\" && at + 1 < commentary.length) {
      text += commentary[at + 1];
      at += 2;
      continue;
    }
    const hashtag = /^\{hashtag\|\\#\|((?:\\.|[^}\\])+)\}/u.exec(commentary.slice(at));
    if (hashtag) {
      text += `#${(hashtag[1] ?? "").replace(/\\(.)/gu, "$1")}`;
      at += hashtag[0].length;
      continue;
    }
    const mention = /^@\[((?:\\.|[^\]\\])+)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/u.exec(
      commentary.slice(at),
    );
    if (mention) {
      text += (mention[1] ?? "").replace(/\\(.)/gu, "$1");
      at += mention[0].length;
      continue;
    }
    if (reserved.has(character)) return { text, cut: true };
    text += character;
    at += 1;
  }
  return { text, cut: false };
}
