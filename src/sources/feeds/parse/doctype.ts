// A feed's document type declaration, taken out before the XML is read. Feeds carry them for
// reasons of their own (a Netscape RSS 0.91 DTD, an internal subset declaring &nbsp; or other
// entities), and the XML reader chokes on parts of them (a parameter entity), which made such a
// feed unreadable. Nothing in a doctype is used: its entities are never expanded (no "billion
// laughs"), its external DTD never fetched. The named entities HTML knows are decoded as text by
// feedsmith in any case; an entity only the subset declares stays as written.

/** The index just past the quoted string that starts at `start`, or -1 when it never closes. */
function pastQuoted(text: string, start: number): number {
  const close = text.indexOf(text.charAt(start), start + 1);
  return close < 0 ? -1 : close + 1;
}

/** The index just past `end`, searched from `start`, or -1. */
function past(text: string, start: number, end: string): number {
  const at = text.indexOf(end, start);
  return at < 0 ? -1 : at + end.length;
}

/**
 * Where the doctype that starts at `start` ends (just past its ">"), or -1 when it never does. A
 * "]" or ">" inside a quoted string or a comment of the internal subset does not end it.
 */
export function doctypeEnd(text: string, start: number): number {
  let at = start + "<!DOCTYPE".length;
  let inSubset = false;
  while (at >= 0 && at < text.length) {
    const char = text.charAt(at);
    if (char === '"' || char === "'") at = pastQuoted(text, at);
    else if (inSubset && text.startsWith("<!--", at)) at = past(text, at + 4, "-->");
    else if (inSubset && text.startsWith("<?", at)) at = past(text, at + 2, "?>");
    else if (char === "[" && !inSubset) {
      inSubset = true;
      at += 1;
    } else if (char === "]" && inSubset) {
      inSubset = false;
      at += 1;
    } else if (char === ">" && !inSubset) return at + 1;
    else at += 1;
  }
  return -1;
}

/**
 * The XML with its doctype blanked out: each of its characters but line breaks made a space, so
 * that the line and column of an error further on are still the document's own. Unchanged when it
 * has no doctype, or one that never ends (the XML reader then says where it breaks).
 *
 * @example
 * withoutDoctype('<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "b">]><rss/>')
 * // '<?xml version="1.0"?>                              <rss/>'
 */
export function withoutDoctype(xml: string): string {
  // Only the prolog may hold one: the XML declaration, processing instructions, comments, space.
  let at = 0;
  for (;;) {
    while (at < xml.length && " \t\r\n\uFEFF".includes(xml.charAt(at))) at += 1;
    if (xml.startsWith("<?", at)) at = past(xml, at + 2, "?>");
    else if (xml.startsWith("<!--", at)) at = past(xml, at + 4, "-->");
    else break;
    if (at < 0) return xml;
  }
  if (xml.slice(at, at + 9).toUpperCase() !== "<!DOCTYPE") return xml;
  const end = doctypeEnd(xml, at);
  if (end < 0) return xml;
  return xml.slice(0, at) + xml.slice(at, end).replace(/[^\r\n]/g, " ") + xml.slice(end);
}
