// The preview of a post (decision 0025): what each target would receive now, and the form that sets the
// user's own words for one target. Shared by the page, its htmx fragments and the JSON answer.

import type { Post } from "../../contract/posts.ts";
import type { CopyPreview, SiteText, ThreadOptions } from "../../contract/syndicator.ts";
import type { TargetPreview } from "../../syndication/syndication.ts";
import { postTitle } from "./post-title.ts";
import type { PageServices } from "./services.ts";
import { type ShownSegment, shownCopy } from "./shown-copy.ts";

export interface PreviewTargetView extends TargetPreview {
  /** The id of its section on the page. */
  anchor: string;
  /** The text the user typed, shown again when it was refused. */
  draft?: string;
  /** Why the text was refused, or what was done (an announcement). */
  message?: { kind: "success" | "error" | "warning" | "info"; text: string; href?: string };
  /** The copy's text as the service shows it (links, hashtags, mentions). */
  shown: ShownSegment[];
  /** A thread (decision 0055): each post as the service shows it, with its length. */
  shownThread: { shown: ShownSegment[]; count: number; over: boolean }[];
  /** The service's name, for "as Mastodon shows it". */
  service: string;
  /** The service can edit a copy it has: saving changes the live copy. */
  canEdit: boolean;
  /** "Send this" is offered: the copy is not out, not on its way, and its outcome is known. */
  canSend: boolean;
  /** What the site's choice does to the text (locale keys under syndicate.preview.siteHow). */
  siteHow: string[];
  /**
   * The thread choice for this post (decision 0058), where the target can make threads of it:
   * what its account is set to, and what this post asks for.
   */
  threads: { account: boolean; choice: "account" | "on" | "off" } | null;
}

export interface PreviewPageView {
  post: { id: string; url: string; title: string | undefined };
  targets: PreviewTargetView[];
  mountPath: string;
  previewHref: string;
  resultsHref: string;
}

/** States in which "Send this" would double a copy or race one: the results page handles them. */
const SENT_OR_UNSURE = new Set<string>(["syndicated", "sending", "unknown"]);

/** A stable, safe id for a target's section: its position among the post's targets. */
export const previewAnchor = (index: number) => `preview-target-${index + 1}`;

export async function previewPageView(services: PageServices, post: Post): Promise<PreviewPageView> {
  const targets = await services.syndication.copies.preview(post);
  const resultsHref = `${services.mountPath}/posts/${encodeURIComponent(post.id)}`;
  return {
    post: { id: post.id, url: post.url, title: postTitle(post).text ?? undefined },
    targets: targets.map((target, index) => {
      const syndicator = services.syndicators.find((s) => s.info.uid === target.uid);
      return {
        ...target,
        anchor: previewAnchor(index),
        shown: shownCopy(target.preview?.text ?? ""),
        shownThread: shownThread(target.preview),
        service: syndicator?.info.service?.name ?? target.name,
        canEdit: typeof syndicator?.update === "function",
        canSend: syndicator !== undefined && !SENT_OR_UNSURE.has(target.state),
        siteHow: target.siteText ? siteHow(target.siteText) : [],
        threads: threadsView(target, syndicator?.threads),
      };
    }),
    mountPath: services.mountPath,
    previewHref: `${resultsHref}/preview`,
    resultsHref,
  };
}

/** The choice offered for a copy with a text of its own making: not a like, a repost or a capture. */
function threadsView(
  target: TargetPreview,
  threads: ThreadOptions | undefined,
): PreviewTargetView["threads"] {
  const preview = target.preview;
  if (!threads || preview?.text === undefined || (preview.action && preview.action.kind !== "reply"))
    return null;
  const choice = target.threadChoice === undefined ? "account" : target.threadChoice ? "on" : "off";
  return { account: threads.thread, choice };
}

function shownThread(preview: CopyPreview | null): PreviewTargetView["shownThread"] {
  const limit = preview?.length?.limit;
  return (preview?.thread ?? []).map((post) => ({
    shown: shownCopy(post.text),
    count: post.count,
    over: limit !== undefined && post.count > limit,
  }));
}

/** The site's choices that shape the text, as the page lists them. */
function siteHow(site: SiteText): string[] {
  return [
    ...(site.text !== undefined ? ["format"] : []),
    ...(site.truncate === false ? ["noCut"] : []),
    ...(site.appendUrl === true ? ["link"] : site.appendUrl === false ? ["noLink"] : []),
  ];
}

/** The JSON form of one target's preview (snake_case, as the endpoint's other answers). */
export function previewJson(target: TargetPreview) {
  return {
    uid: target.uid,
    name: target.name,
    state: target.state,
    ...(target.url ? { url: target.url } : {}),
    own_text: target.ownText ? { text: target.ownText.text, source: target.ownText.source } : null,
    site_text: target.siteText && !target.ownText ? siteJson(target.siteText) : null,
    thread_choice: target.threadChoice ?? null,
    preview: target.preview ? copyJson(target.preview) : null,
  };
}

function siteJson(site: SiteText) {
  return {
    ...(site.text === undefined ? {} : { text: site.text }),
    ...(site.truncate === undefined ? {} : { truncate: site.truncate }),
    ...(site.appendUrl === undefined ? {} : { append_url: site.appendUrl }),
  };
}

function copyJson(preview: CopyPreview) {
  return {
    ...(preview.text === undefined ? {} : { text: preview.text }),
    ...(preview.length
      ? {
          length: {
            count: preview.length.count,
            limit: preview.length.limit ?? null,
            unit: preview.length.unit,
            assumed: preview.length.assumed === true,
          },
        }
      : {}),
    over: preview.over,
    ...(preview.thread
      ? { thread: preview.thread.map((post) => ({ text: post.text, count: post.count })) }
      : {}),
    cut: preview.cut,
    permalink: preview.permalink,
    photos: preview.photos,
    ...(preview.linkCard ? { link_card: preview.linkCard } : {}),
    ...(preview.action ? { action: preview.action } : {}),
    own_text: preview.ownText,
    ...(preview.notSent ? { not_sent: preview.notSent.reason } : {}),
  };
}
