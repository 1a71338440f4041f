// The end of a run in words, the same wherever it is shown (the form's flash, the live announcement,
// the status of a run started elsewhere): every count, skipped posts included, in a warning style
// whenever something still needs attention, with a link to those posts.
import type { Flash } from "../../contract/flash.ts";
import type { Translate } from "../../contract/i18n.ts";
import { needsAttention } from "../../syndication/runs/post-result.ts";
import type { PostResult, RunSummary } from "../../syndication/types.ts";

export type SummaryView = Required<Pick<Flash, "kind" | "text">> & { link: Flash["link"] | null };

/** The page's filter for the posts a summary's link leads to. */
export function attentionHref(mountPath: string): string {
  return `${mountPath}?state=attention`;
}

/** The counts of a summary, each with its own plural ("1 syndiqué", "2 syndiqués"). */
export function countsText(t: Translate, summary: RunSummary): string {
  // "0 partly sent, 0 failed" says nothing (decision 0022): only the syndicated count is always told.
  const parts = (["syndicated", "partial", "failed", "skipped"] as const)
    .filter((part) => part === "syndicated" || summary[part] > 0)
    .map((part) => t(`syndicate.summary.${part}`, { count: summary[part] }));
  // Copies that followed their post (decision 0028) are told apart from sends, when there were any.
  if (summary.followed) parts.push(t("syndicate.summary.followed", { count: summary.followed }));
  return parts.join(t("syndicate.summary.separator"));
}

/**
 * How far a run has got, for the progress line and the live region; out of `total`, the posts that
 * awaited when it started, while the run has not gone past them (retries and follow-ups add posts).
 */
export function progressText(t: Translate, summary: RunSummary, total?: number): string {
  const parts = countsText(t, summary);
  if (total !== undefined && total >= summary.posts)
    return t("syndicate.run.progressOf", { done: summary.posts, count: total, parts });
  return t("syndicate.run.progress", { count: summary.posts, parts });
}

export function batchSummaryView(t: Translate, summary: RunSummary, mountPath: string): SummaryView {
  if (summary.posts === 0) return { kind: "info", text: t("syndicate.flash.nothing"), link: null };
  const text = t("syndicate.flash.batch", { count: summary.posts, parts: countsText(t, summary) });
  const kind = summary.failed > 0 ? "error" : needsAttention(summary) ? "warning" : "success";
  const link = needsAttention(summary)
    ? { href: attentionHref(mountPath), text: t("syndicate.summary.showAttention") }
    : null;
  return { kind, text, link };
}

/** One post's outcome; `title` names it (its title, else its URL). */
export function singleSummaryView(
  t: Translate,
  result: PostResult,
  title: string,
  key: "flash" | "live",
): SummaryView {
  const text = t(`syndicate.${key}.single.${result.status}`, { url: result.url, title });
  const waiting = result.targets.some((target) => target.status === "skipped");
  const kind =
    result.status === "failed"
      ? "error"
      : result.status === "partial" || waiting
        ? "warning"
        : result.status === "syndicated"
          ? "success"
          : "info";
  return { kind, text, link: null };
}

export function asFlash(view: SummaryView): Flash {
  return view.link
    ? { kind: view.kind, text: view.text, link: view.link }
    : { kind: view.kind, text: view.text };
}
