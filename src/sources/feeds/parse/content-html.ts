// An entry's HTML as the post stores it: every URL attribute made absolute against the entry's
// base (a copy shown on another service cannot resolve "/posts/1"), and written out by one
// serializer (parse5's), so that the same content read from RSS, Atom, JSON Feed or an h-feed is
// the same string whatever quoting, entity or void-element style the source used. That sameness
// is what lets an entry's hash say "unchanged" across formats and across rebuilds of the site.
import { type DefaultTreeAdapterMap, parseFragment, serialize } from "parse5";

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

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

function isElement(node: Node): node is Element {
  return "attrs" in node && Array.isArray((node as Element).attrs);
}

function childrenOf(node: Node): Node[] {
  const template = node as { content?: { childNodes: Node[] } };
  if (template.content) return template.content.childNodes;
  return (node as { childNodes?: Node[] }).childNodes ?? [];
}

function resolveTree(node: Node, base: string): void {
  // An explicit stack, not recursion: a hostile feed's content may nest deeper than the call stack.
  const stack: Node[] = [node];
  for (let current = stack.pop(); current; current = stack.pop()) {
    if (isElement(current)) {
      for (const attribute of current.attrs) {
        const name = attribute.name.toLowerCase();
        if (URL_ATTRIBUTES.has(name)) attribute.value = resolveOne(attribute.value, base);
        else if (SRCSET_ATTRIBUTES.has(name)) attribute.value = resolveSrcset(attribute.value, base);
      }
    }
    stack.push(...childrenOf(current));
  }
}

/**
 * HTML with its URLs absolute, serialised the one way.
 *
 * @example
 * contentHtml('<p><a href="/a">x</a><br/></p>', "https://example.com/blog/")
 * // '<p><a href="https://example.com/a">x</a><br></p>'
 */
export function contentHtml(html: string, base: string): string {
  const fragment = parseFragment(html);
  resolveTree(fragment, base);
  return serialize(fragment).trim();
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
