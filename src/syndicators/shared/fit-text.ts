// Cutting a text to a target's limit. Links are never cut in half (a half link counts differently
// and leads nowhere), the cut prefers the end of a word, and an ellipsis shows that text is missing.
import { graphemes } from "../../contract/graphemes.ts";
import { findUrls } from "./urls.ts";

export const ellipsis = "…";

/** How far back (in graphemes) a cut may move to end on a whole word. */
const wordBoundaryReach = 30;

function tokens(text: string): string[] {
  const parts: string[] = [];
  let at = 0;
  for (const { start, end } of findUrls(text)) {
    parts.push(...graphemes(text.slice(at, start)), text.slice(start, end));
    at = end;
  }
  parts.push(...graphemes(text.slice(at)));
  return parts;
}

function prefix(parts: string[], count: number): string {
  const text = parts.slice(0, count).join("").trimEnd();
  return text ? `${text}${ellipsis}` : "";
}

/**
 * The longest cut of `text` (ending in an ellipsis) for which `fits(cut)` holds, or undefined when
 * not even one word fits. `fits` sees the cut alone and composes the rest itself, so the caller
 * decides what surrounds the text (hashtags, the permalink) and how the target counts.
 */
export function cutToFit(text: string, fits: (cut: string) => boolean): string | undefined {
  const parts = tokens(text);
  // Binary search for the most tokens that fit; `fits` grows monotonically with the prefix.
  let low = 0;
  let high = parts.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(prefix(parts, middle))) low = middle;
    else high = middle - 1;
  }
  if (low === 0) return undefined;
  for (let end = low; end > 0 && end >= low - wordBoundaryReach; end--) {
    if (/^\s+$/.test(parts[end] ?? "")) {
      const cut = prefix(parts, end);
      if (cut) return cut;
    }
  }
  return prefix(parts, low) || undefined;
}
