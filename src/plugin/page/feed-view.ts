// The Syndicate page's Feeds section (decision 0040): each configured feed as the page shows it,
// with the id its buttons name it by, and the sentence that says what a read the user asked for did.
import { createHash } from "node:crypto";
import type { Flash } from "../../contract/flash.ts";
import type { Translate } from "../../contract/i18n.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { FeedReport, FeedSource, ReadSummary } from "../../sources/feeds/feed-source.ts";
import type { FeedSources } from "../../sources/feeds/feed-sources.ts";

/**
 * A feed's id in the page's addresses (`{mountPath}/feeds/<id>/fetch`): short, stable across
 * restarts and the order of the `feeds` option, and never the URL itself in a path segment.
 */
export function feedIdOf(key: string): string {
  return createHash("sha256").update(key).digest("base64url").slice(0, 16);
}

export function findFeed(feeds: FeedSources | null, id: string): FeedSource | undefined {
  return feeds?.feeds.find((feed) => feedIdOf(feed.key) === id);
}

/** The page's list of every post of the feed (its entries: those sent, and those only known). */
export function feedPostsHref(feed: FeedSource, mountPath: string): string {
  return `${mountPath}?${new URLSearchParams({ state: "all", origin: feed.origin })}`;
}

export interface FeedView extends FeedReport {
  id: string;
  /** Where the section's buttons post. */
  actionBase: string;
  /** The page's list of every post of this feed. */
  postsHref: string;
  /** The names of the targets its new entries go to. */
  targetNames: string[];
  /**
   * The targets it names that no syndicator has now (an account disconnected from the Accounts
   * page since the start): its entries for them wait, and go out once a target with the uid is back.
   */
  missingTargets: string[];
}

export async function feedViews(
  feeds: FeedSources | null,
  syndicators: readonly SyndicatorPlugin[],
  mountPath: string,
): Promise<FeedView[]> {
  if (!feeds) return [];
  return Promise.all(
    feeds.feeds.map(async (feed) => feedView(feed, await feed.report(), syndicators, mountPath)),
  );
}

export function feedView(
  feed: FeedSource,
  report: FeedReport,
  syndicators: readonly SyndicatorPlugin[],
  mountPath: string,
): FeedView {
  const id = feedIdOf(feed.key);
  const nameOf = (uid: string) => syndicators.find((s) => s.info.uid === uid)?.info.name ?? uid;
  const installed = new Set(syndicators.map((syndicator) => syndicator.info.uid));
  return {
    ...report,
    id,
    actionBase: `${mountPath}/feeds/${id}`,
    postsHref: feedPostsHref(feed, mountPath),
    targetNames: feed.feed.targets.map(nameOf),
    missingTargets: feed.feed.targets.filter((uid) => !installed.has(uid)),
  };
}

/**
 * What a read the user asked for did, in the reader's words: what was recorded and sent (with a link
 * to the feed's entries on the page), or why it could not be read.
 */
export function readOutcome(
  summary: ReadSummary,
  report: FeedReport,
  t: Translate,
  postsHref: string,
): Flash {
  const { recorded } = summary;
  const error = report.lastError ?? "";
  switch (summary.outcome) {
    case "fetched": {
      if (recorded.new + recorded.changed === 0)
        return { kind: "success", text: t("syndicate.feeds.read.nothingNew", { url: report.url }) };
      const parts = [
        ...(recorded.new > 0 ? [t("syndicate.feeds.read.new", { count: recorded.new })] : []),
        ...(recorded.sent > 0 ? [t("syndicate.feeds.read.sent", { count: recorded.sent })] : []),
        ...(recorded.changed > 0 ? [t("syndicate.feeds.read.changed", { count: recorded.changed })] : []),
      ];
      return {
        kind: "success",
        text: t("syndicate.feeds.read.done", { url: report.url, what: parts.join("; ") }),
        link: { href: postsHref, text: t("syndicate.feeds.showEntries") },
      };
    }
    case "not-modified":
      return { kind: "info", text: t("syndicate.feeds.read.notModified", { url: report.url }) };
    case "held":
      return { kind: "warning", text: t("syndicate.feeds.read.held", { url: report.url, error }) };
    default:
      // A 410 now, or a feed stopped by one before (its read skipped): never read again by itself.
      if (report.state === "stopped")
        return { kind: "error", text: t("syndicate.feeds.read.stopped", { url: report.url, error }) };
      return { kind: "error", text: t("syndicate.feeds.read.failed", { url: report.url, error }) };
  }
}
