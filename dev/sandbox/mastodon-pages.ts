// The sandbox's web pages: a timeline at /, a profile at /@user and a page per status at its URL,
// so the links a demo shows open something real-looking.
import { escapeHtml } from "./http-kit.ts";

export interface PageStatus {
  url: string;
  username: string;
  displayName: string;
  contentHtml: string;
  createdAt: string;
  media: { url: string; description: string | null }[];
  favourited: boolean;
  reblogged: boolean;
  inReplyToUrl?: string;
}

const style = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f8;color:#1c1c28}
header{background:#563acc;color:#fff;padding:1rem 1.5rem}
header a{color:#fff}
main{max-width:40rem;margin:1.5rem auto;padding:0 1rem}
article{background:#fff;border-radius:8px;padding:1rem 1.25rem;margin-bottom:1rem;box-shadow:0 1px 2px #0002}
.who{font-weight:600}.who small{font-weight:400;color:#666}
img{max-width:100%;border-radius:6px;margin-top:.5rem}
time,.meta{color:#666;font-size:.875rem}
.empty{color:#666}`;

function layout(title: string, sandboxName: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${style}</style></head>
<body><header><strong><a href="/">${escapeHtml(sandboxName)}</a></strong>
<div class="meta" style="color:#ddd">A local sandbox Mastodon: nothing here leaves your computer.</div></header>
<main>${body}</main></body></html>`;
}

function article(status: PageStatus, host: string): string {
  const media = status.media
    .map((item) => `<img src="${escapeHtml(item.url)}" alt="${escapeHtml(item.description ?? "")}">`)
    .join("");
  const reply = status.inReplyToUrl
    ? `<div class="meta">In reply to <a href="${escapeHtml(status.inReplyToUrl)}">a status</a></div>`
    : "";
  const marks = [status.favourited ? "★ favourited" : "", status.reblogged ? "⟲ boosted" : ""]
    .filter(Boolean)
    .join(" · ");
  return `<article>
<div class="who">${escapeHtml(status.displayName)} <small><a href="/@${escapeHtml(status.username)}">@${escapeHtml(status.username)}@${escapeHtml(host)}</a></small></div>
${reply}${status.contentHtml}${media}
<div class="meta"><a href="${escapeHtml(status.url)}"><time datetime="${escapeHtml(status.createdAt)}">${escapeHtml(new Date(status.createdAt).toUTCString())}</time></a>${marks ? ` · ${marks}` : ""}</div>
</article>`;
}

export function timelinePage(
  sandboxName: string,
  host: string,
  statuses: PageStatus[],
  heading: string,
): string {
  const items = statuses.length
    ? statuses.map((status) => article(status, host)).join("\n")
    : `<p class="empty">No statuses yet. Syndicate a post and it appears here.</p>`;
  return layout(heading, sandboxName, `<h1>${escapeHtml(heading)}</h1>${items}`);
}

export function statusPage(sandboxName: string, host: string, status: PageStatus): string {
  return layout(`${status.displayName} on ${sandboxName}`, sandboxName, article(status, host));
}

export function notFoundPage(sandboxName: string): string {
  return layout(
    "Not found",
    sandboxName,
    `<h1>Not found</h1><p>There is no such status in this sandbox.</p>`,
  );
}
