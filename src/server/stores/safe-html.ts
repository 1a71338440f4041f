// A post's HTML as the pages store shows it: the elements and attributes of written text only.
// Anything else (scripts, styles, frames, event handlers, javascript: links) is dropped; an unknown
// element is unwrapped, its text kept. The pages are served from the admin's own origin.

import type { DefaultTreeAdapterMap } from "parse5";
import { parseFragment, serialize } from "parse5";

type Node = DefaultTreeAdapterMap["childNode"];
type ParentNode = DefaultTreeAdapterMap["parentNode"];

const KEPT = new Set([
  "p",
  "br",
  "a",
  "em",
  "strong",
  "b",
  "i",
  "u",
  "s",
  "ul",
  "ol",
  "li",
  "blockquote",
  "q",
  "code",
  "pre",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "img",
  "figure",
  "figcaption",
  "hr",
  "sub",
  "sup",
  "small",
  "abbr",
  "del",
  "ins",
]);
/** Dropped with everything in them. */
const DROPPED = new Set([
  "script",
  "style",
  "iframe",
  "object",
  "embed",
  "noscript",
  "template",
  "svg",
  "math",
  "form",
  "title",
  "head",
]);
const ATTRIBUTES: Record<string, Set<string>> = {
  a: new Set(["href", "title"]),
  img: new Set(["src", "alt", "width", "height"]),
  abbr: new Set(["title"]),
};
const SAFE_URL = /^(https?:|mailto:|\/|#)/i;

function clean(parent: ParentNode): void {
  const children: Node[] = [];
  for (const node of parent.childNodes) {
    if (node.nodeName === "#text") children.push(node);
    else if (node.nodeName === "#comment" || !("tagName" in node)) continue;
    else if (DROPPED.has(node.tagName)) continue;
    else if (KEPT.has(node.tagName)) {
      const allowed = ATTRIBUTES[node.tagName];
      node.attrs = node.attrs.filter(
        (attr) =>
          allowed?.has(attr.name) &&
          (!["href", "src"].includes(attr.name) || SAFE_URL.test(attr.value.trim())),
      );
      clean(node);
      children.push(node);
    } else {
      // Unwrapped: its children take its place.
      clean(node);
      for (const child of node.childNodes) {
        child.parentNode = parent;
        children.push(child);
      }
    }
  }
  parent.childNodes = children;
}

export function safeHtml(html: string): string {
  const fragment = parseFragment(html);
  clean(fragment);
  return serialize(fragment);
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/**
 * A link in plain text: http(s) up to a space or a character no URL holds (<, >, "), its last
 * character not a punctuation mark that ends the sentence around it.
 */
const TEXT_LINK = /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)']/g;

/**
 * The text escaped, its links made clickable. Links are found in the text as written, before it is
 * escaped: found in the escaped text, a link directly followed by "<" took in "&lt;".
 */
function linkedText(text: string): string {
  let html = "";
  let last = 0;
  for (const match of text.matchAll(TEXT_LINK)) {
    const url = escapeHtml(match[0]);
    html += `${escapeHtml(text.slice(last, match.index))}<a href="${url}">${url}</a>`;
    last = match.index + match[0].length;
  }
  return html + escapeHtml(text.slice(last));
}

/** Plain text as paragraphs, links made clickable. */
export function textAsHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${linkedText(paragraph).replace(/\n/g, "<br>")}</p>`)
    .join("\n");
}

/** A post's content as safe HTML. */
export function contentHtml(content: unknown): string {
  if (typeof content === "string") return textAsHtml(content);
  if (content && typeof content === "object") {
    const { html, text, value } = content as { html?: unknown; text?: unknown; value?: unknown };
    if (typeof html === "string") return safeHtml(html);
    if (typeof text === "string") return textAsHtml(text);
    if (typeof value === "string") return textAsHtml(value);
  }
  return "";
}
