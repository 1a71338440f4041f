// How the sandbox reads a status's text the way Mastodon does: its length (graphemes, every link as
// 23, remote mentions without their domain), its hashtags, and its HTML `content`. Written apart
// from the syndicator's own counting on purpose: a fake that shared the client's code could not
// catch the client's mistakes.
import { escapeHtml } from "./http-kit.ts";

const linkPattern = /https?:\/\/[^\s<>"]*[^\s<>".,;:!?'")\]]/g;
const hashtagPattern = /(^|[^/)\w])#([\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*)/gu;
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

export function statusLength(text: string): number {
  const countable = text
    .replace(linkPattern, "x".repeat(23))
    .replace(/(^|[^\w@/])@(\w+)@[\w.-]+\w/g, "$1@$2");
  return Array.from(segmenter.segment(countable)).length;
}

export function hashtagsIn(text: string): string[] {
  const found = new Map<string, string>();
  for (const match of text.matchAll(hashtagPattern)) {
    const name = match[2] ?? "";
    if (!found.has(name.toLowerCase())) found.set(name.toLowerCase(), name);
  }
  return [...found.values()];
}

/**
 * Mastodon's HTML for a status: paragraphs, line breaks, and links for addresses, hashtags and
 * remote mentions.
 */
export function statusHtml(text: string, baseUrl: string): string {
  const linkify = (line: string) => {
    let html = "";
    let at = 0;
    for (const match of line.matchAll(linkPattern)) {
      html += tagsToLinks(escapeHtml(line.slice(at, match.index)), baseUrl);
      const url = escapeHtml(match[0]);
      html += `<a href="${url}" rel="nofollow noopener" target="_blank">${url}</a>`;
      at = match.index + match[0].length;
    }
    return html + tagsToLinks(escapeHtml(line.slice(at)), baseUrl);
  };
  return text
    .split(/\n{2,}/)
    .filter((paragraph) => paragraph.trim())
    .map((paragraph) => `<p>${paragraph.split("\n").map(linkify).join("<br />")}</p>`)
    .join("");
}

function tagsToLinks(escaped: string, baseUrl: string): string {
  return escaped
    .replace(
      hashtagPattern,
      (_whole, before: string, name: string) =>
        `${before}<a href="${baseUrl}/tags/${encodeURIComponent(name.toLowerCase())}" class="mention hashtag" rel="tag">#<span>${name}</span></a>`,
    )
    .replace(
      remoteMentionPattern,
      // As Mastodon's TextFormatter#link_to_mention shows a mention it resolved: the user name
      // only, without the domain (the sandbox takes every remote account for known).
      (_whole, before: string, name: string, domain: string) =>
        `${before}<span class="h-card" translate="no"><a href="https://${domain}/@${name}" class="u-url mention">@<span>${name}</span></a></span>`,
    );
}

const remoteMentionPattern = /(^|[^\w@/])@(\w+)@([\w.-]+\w)/g;
