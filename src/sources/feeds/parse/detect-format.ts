// What a body is, read from the body itself: servers label feeds text/html, text/plain or
// application/octet-stream often enough that the Content-Type cannot decide. The root element
// decides for XML (rss, rdf:RDF, feed), the first character for JSON, a doctype or an <html>
// element for HTML. Kinds that are not feeds are told apart too, so that the error can say what
// the address returned instead.

import { doctypeEnd } from "./doctype.ts";

export type BodyKind =
  | { kind: "empty" }
  | { kind: "xml"; root: "rss" | "rdf" | "atom" }
  | { kind: "xml-other"; root: string }
  /** XML whose prolog never ends (the body was cut off in it): what was left open, and on which line. */
  | { kind: "xml-unterminated"; open: string; line: number }
  | { kind: "json" }
  | { kind: "html" }
  | { kind: "text" };

interface Prolog {
  rest: string;
  htmlDoctype: boolean;
  /** What never ends, when the body stops inside the prolog. */
  open?: string;
}

/** Skips the prolog: whitespace, the XML declaration, processing instructions, comments, a doctype. */
function afterProlog(text: string): Prolog {
  let rest = text.trimStart();
  let htmlDoctype = false;
  for (;;) {
    if (rest.startsWith("<?")) {
      const end = rest.indexOf("?>");
      if (end < 0) return { rest, htmlDoctype, open: rest.startsWith("<?xml") ? "<?xml" : "<?" };
      rest = rest.slice(end + 2).trimStart();
    } else if (rest.startsWith("<!--")) {
      const end = rest.indexOf("-->");
      if (end < 0) return { rest, htmlDoctype, open: "<!--" };
      rest = rest.slice(end + 3).trimStart();
    } else if (/^<!doctype/i.test(rest)) {
      if (/^<!doctype\s+html\b/i.test(rest)) htmlDoctype = true;
      const end = doctypeEnd(rest, 0);
      if (end < 0) return { rest, htmlDoctype, open: "<!DOCTYPE" };
      rest = rest.slice(end).trimStart();
    } else {
      return { rest, htmlDoctype };
    }
  }
}

/** The line (from 1) of the character at `index`. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < index; at = text.indexOf("\n", at + 1)) line += 1;
  return line;
}

/**
 * The kind of a decoded body.
 *
 * @example
 * detectFormat('<?xml version="1.0"?><rss version="2.0">…')  // { kind: "xml", root: "rss" }
 * detectFormat('{"version": "https://jsonfeed.org/version/1.1"…') // { kind: "json" }
 */
export function detectFormat(text: string): BodyKind {
  const trimmed = text.trimStart();
  if (!trimmed) return { kind: "empty" };
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return { kind: "json" };
  if (!trimmed.startsWith("<")) {
    return /<html[\s>]|<body[\s>]/i.test(trimmed.slice(0, 4096)) ? { kind: "html" } : { kind: "text" };
  }
  const { rest, htmlDoctype, open } = afterProlog(trimmed);
  if (htmlDoctype) return { kind: "html" };
  if (open) return { kind: "xml-unterminated", open, line: lineAt(text, text.length - rest.length) };
  const name = /^<([A-Za-z_][\w.:-]*)/.exec(rest)?.[1];
  if (!name) return { kind: "text" };
  const local = (name.includes(":") ? name.slice(name.indexOf(":") + 1) : name).toLowerCase();
  if (local === "html") return { kind: "html" };
  if (local === "rss") return { kind: "xml", root: "rss" };
  if (local === "rdf") return { kind: "xml", root: "rdf" };
  if (local === "feed") return { kind: "xml", root: "atom" };
  // An HTML page without <html> (allowed: the tag is optional) starts with head or body content.
  if (/^(?:head|body|meta|title|link|div|p|h[1-6]|script|style)$/.test(local)) return { kind: "html" };
  return { kind: "xml-other", root: name };
}
