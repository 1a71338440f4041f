// How Threads counts a post's text: 500 characters, "emojis are counted as the number of UTF-8
// bytes" (developers.facebook.com/docs/threads/posts, Limitations). A character is a grapheme; a
// grapheme that is an emoji (or a flag) counts its UTF-8 bytes instead of 1.
import { graphemes, utf8Length } from "../../contract/graphemes.ts";

export const THREADS_TEXT_LIMIT = 500;

const emoji = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

export function threadsLength(text: string): number {
  let count = 0;
  for (const grapheme of graphemes(text)) count += emoji.test(grapheme) ? utf8Length(grapheme) : 1;
  return count;
}
