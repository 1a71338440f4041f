// An entry's HTML as the post stores it: every URL attribute made absolute against the entry's
// base (a copy shown on another service cannot resolve "/posts/1"), and written out by one
// serializer, so that the same content read from RSS, Atom, JSON Feed or an h-feed is the same
// string whatever quoting, entity or void-element style the source used. That sameness is what
// lets an entry's hash say "unchanged" across formats and across rebuilds of the site.
//
// htmlparser2 (the parser html-to-text already uses) rather than parse5: it reads a megabyte of
// HTML several times faster, and in linear time however deep the nesting, where a tree builder
// that follows the HTML standard slows down quadratically on a hostile feed's 100,000 nested divs.
import render from "dom-serializer";
import { type ChildNode, type Document, Element, Text } from "domhandler";
import { parseDocument } from "htmlparser2";

/** Deeper than this, content is hostile or broken: kept as its text, which needs no recursion to write. */
export const MAX_DEPTH = 1000;

/** Attributes that hold one URL, whatever element carries them. */
const URL_ATTRIBUTES: ReadonlySet<string> = new Set([
  "href",
  "src",
  "poster",
  "cite",
  "action",
  "formaction",
  "data",
  "longdesc",
  "background",
]);

/** Attributes that hold a list of "URL [descriptor]" candidates. */
const SRCSET_ATTRIBUTES: ReadonlySet<string> = new Set(["srcset", "imagesrcset"]);

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function resolveOne(value: string, base: string): string {
  const text = value.trim();
  // An absolute URL (any scheme: mailto:, data:, tel:) and an empty value stay as written.
  if (!text || SCHEME.test(text)) return value;
  try {
    return new URL(text, base).href;
  } catch {
    return value;
  }
}

function resolveSrcset(value: string, base: string): string {
  return value
    .split(",")
    .map((candidate) => {
      const [url, ...descriptors] = candidate.trim().split(/\s+/);
      return url ? [resolveOne(url, base), ...descriptors].join(" ") : "";
    })
    .filter(Boolean)
    .join(", ");
}

/**
 * Resolves every URL attribute in place and returns the tree's depth. An explicit stack, not
 * recursion: the depth is not known before the walk.
 */
function resolveTree(document: Document, base: string): number {
  let deepest = 0;
  const stack: Array<[ChildNode, number]> = document.children.map((node) => [node, 1]);
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (!(node instanceof Element)) continue;
    deepest = Math.max(deepest, depth);
    for (const [name, value] of Object.entries(node.attribs)) {
      const lower = name.toLowerCase();
      if (URL_ATTRIBUTES.has(lower)) node.attribs[name] = resolveOne(value, base);
      else if (SRCSET_ATTRIBUTES.has(lower)) node.attribs[name] = resolveSrcset(value, base);
    }
    for (const child of node.children) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Every text node's text, in document order, without recursion. */
function textOf(document: Document): string {
  const parts: string[] = [];
  const stack: ChildNode[] = [...document.children].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node instanceof Text) parts.push(node.data);
    else if (node instanceof Element && node.name !== "script" && node.name !== "style") {
      for (let index = node.children.length - 1; index >= 0; index--) {
        const child = node.children[index];
        if (child) stack.push(child);
      }
    }
  }
  return parts.join("").replace(/\s+/g, " ").trim();
}

/** Plain text as HTML (a JSON Feed `content_text`, an Atom `type="text"`): escaped, lines kept. */
export function textAsHtml(text: string): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return escaped
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${paragraph.replace(/\n/g, "<br>")}</p>`)
    .join("");
}

export interface ContentHtml {
  html: string;
  /** Set when the content was too deeply nested to keep as HTML: the sentence for the entry's problems. */
  problem?: string;
}

/**
 * HTML with its URLs absolute, serialised the one way.
 *
 * @example
 * contentHtml("<p><a href='/a'>x</a><br/></p>", "https://example.com/blog/").html
 * // '<p><a href="https://example.com/a">x</a><br></p>'
 */
export function contentHtml(html: string, base: string): ContentHtml {
  const document = parseDocument(html);
  const depth = resolveTree(document, base);
  if (depth > MAX_DEPTH) {
    return {
      html: textAsHtml(textOf(document)),
      problem: `The content nests elements ${depth} deep (more than ${MAX_DEPTH}); only its text is kept.`,
    };
  }
  return { html: render(document, { encodeEntities: "utf8" }).trim() };
}
