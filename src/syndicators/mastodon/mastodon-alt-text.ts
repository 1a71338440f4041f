// Alt text over the instance's limit makes Mastodon refuse the upload for good (422), so a long
// description is cut at a word, with an ellipsis, rather than losing the photo or the post.
import { cutToFit } from "../shared/fit-text.ts";

/** Mastodon counts a description as Ruby counts a string: in code points. */
const codePoints = (text: string) => [...text].length;

export function cutAltText(alt: string, limit: number): string {
  if (codePoints(alt) <= limit) return alt;
  return (
    cutToFit(alt, (cut) => codePoints(cut) <= limit) ??
    [...alt]
      .slice(0, limit - 1)
      .join("")
      .concat("…")
  );
}
