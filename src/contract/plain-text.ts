// The one HTML-to-text of possekit (decision 0047): the host writes JF2's `content.text` with it when a
// client sends only HTML, and every syndicator makes its copy's text with it. Built on the
// `html-to-text` package (Indiekit's choice), whose parser decodes every named and numeric entity,
// in text and in attributes alike. A status is plain text, so paragraphs become blank lines, line
// breaks stay, list items start with "- ", images and scripts are dropped (photos are sent as
// photos), and a link whose text hides its address keeps the address after the text: the reader of
// a copy cannot hover over a link.
import { compile, type DomNode, type FormatCallback } from "html-to-text";

export interface PlainTextOptions {
  /**
   * "inline" (the default): a link's address follows its text, "this page (https://…)", unless the
   * text is the address. "drop": the text only, for a service that shows the link another way.
   */
  links?: "inline" | "drop";
}

/** The text inside an element, entities already decoded by the parser. */
function textOf(nodes: readonly DomNode[] | undefined): string {
  let text = "";
  for (const node of nodes ?? []) {
    if (node.type === "text") text += (node as { data?: string }).data ?? "";
    else text += textOf((node as { children?: DomNode[] }).children);
  }
  return text;
}

/** The address a link shows: an absolute http(s) URL, or none (a relative or script link). */
function linkAddress(elem: DomNode): string | undefined {
  const href = (elem as { attribs?: Record<string, string> }).attribs?.href?.trim();
  return href && /^https?:\/\/[^\s]+$/i.test(href) ? href : undefined;
}

function sameAddress(text: string, address: string): boolean {
  const shown = text.trim().replace(/\/$/, "");
  const bare = address.replace(/\/$/, "");
  return shown === bare || shown === bare.replace(/^https?:\/\//i, "");
}

const inlineLink: FormatCallback = (elem, walk, builder) => {
  const address = linkAddress(elem);
  const text = textOf(elem.children);
  // A link that shows its own address, or nothing, is written as the whole address (with its
  // scheme, so that the service makes it a link).
  if (address && (!text.trim() || sameAddress(text, address))) {
    builder.addInline(address, { noWordTransform: true });
    return;
  }
  walk(elem.children, builder);
  if (address) builder.addInline(` (${address})`, { noWordTransform: true });
};

const textOnlyLink: FormatCallback = (elem, walk, builder) => {
  walk(elem.children, builder);
};

function converter(links: "inline" | "drop") {
  return compile({
    wordwrap: false,
    formatters: { possekitLink: links === "inline" ? inlineLink : textOnlyLink },
    selectors: [
      { selector: "a", format: "possekitLink" },
      { selector: "img", format: "skip" },
      { selector: "h1", options: { uppercase: false } },
      { selector: "h2", options: { uppercase: false } },
      { selector: "h3", options: { uppercase: false } },
      { selector: "h4", options: { uppercase: false } },
      { selector: "h5", options: { uppercase: false } },
      { selector: "h6", options: { uppercase: false } },
      { selector: "ul", options: { itemPrefix: "- " } },
    ],
  });
}

const converters = { inline: converter("inline"), drop: converter("drop") };

/**
 * HTML as plain text for a copy.
 *
 * @example
 * htmlToText('<p>See <a href="https://x.example/a">this page</a>&hellip; &mdash; ok &amp; more</p>')
 * // "See this page (https://x.example/a)… — ok & more"
 */
export function htmlToText(html: string, options: PlainTextOptions = {}): string {
  return converters[options.links ?? "inline"](html)
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * A value with HTML entities (an attribute's raw text, such as a meta tag's `content`) decoded:
 * every named, decimal and hexadecimal entity, by the same parser.
 */
export function decodeEntities(text: string): string {
  // The value is read as the text of an element; `&lt;` stays "<" and never becomes a tag.
  return converters.drop(`<p>${text.replace(/</g, "&lt;")}</p>`).trim();
}
