// The site's text choices for one entry, per target (decision 0038), with POSSE Party's meaning
// (github.com/searlsco/posse_party: MungesConfig, AppliesFormatString, ComposesCrosspostContent):
//
// - A target's choice is the entry's, overridden by `platform_overrides` under each platform tag
//   that names the target, then under the target's own uid.
// - A platform tag names the targets whose service is called so, case aside ("mastodon": the
//   Mastodon targets); "bsky" and "bluesky" both name Bluesky. POSSE Party's other tags (x, threads,
//   linkedin, facebook, instagram, youtube) name a target only when one's service has that name.
// - `format_string` is expanded from the entry: `{{title}}`, `{{summary}}`, `{{content}}` (plain
//   text), `{{url}}`, `{{author_name}}`; any other placeholder is empty, as in POSSE Party. The result
//   is NFC-normalised, runs of spaces become one, spaces before a line break go, and it is trimmed.
//   An empty result is no text: the target's template makes it.
// - `truncate` and `append_url` go to the target as they are (src/contract/syndicator.ts SiteText):
//   the target fits the text to its own limit, which only it knows.
import type { SiteText } from "../../contract/syndicator.ts";
import type { EntryChoices, FeedEntry, TargetChoice } from "./parse/index.ts";

/** The platform tags that name a target whose service is called `serviceName` (e.g. "Bluesky"). */
export function platformTags(serviceName: string | undefined): string[] {
  const name = serviceName?.trim().toLowerCase();
  if (!name) return [];
  return name === "bluesky" || name === "bsky" ? ["bsky", "bluesky"] : [name];
}

/** The entry's choice for one target: the entry's, then each of its platform tags', then its uid's. */
export function choiceFor(choices: EntryChoices, uid: string, tags: readonly string[]): TargetChoice {
  const { targets: _named, perTarget, sources: _sources, ...base } = choices;
  const choice: TargetChoice = { ...base };
  for (const key of [...tags, uid]) Object.assign(choice, perTarget[key]);
  return choice;
}

const PLACEHOLDER = /\{\{([^{}]+)\}\}/g;

/** What a placeholder stands for in this entry ("" for one it does not have). */
function placeholder(entry: FeedEntry, name: string): string {
  switch (name) {
    case "title":
      return entry.title ?? "";
    case "summary":
      return entry.summary ?? "";
    case "content":
      return entry.contentText ?? "";
    case "url":
      return entry.url ?? "";
    case "author_name":
      return entry.author?.name ?? "";
    default:
      return "";
  }
}

/**
 * A format string made into the entry's text, as POSSE Party's AppliesFormatString does.
 *
 * @example
 * expandFormat("{{ title }}:  {{content}} \n{{url}}", entry)
 * // "Hello: First post.\nhttps://blog.example/hello/"
 */
export function expandFormat(format: string, entry: FeedEntry): string {
  return format
    .replace(PLACEHOLDER, (_match, name: string) => placeholder(entry, name.trim()))
    .normalize("NFC")
    .replace(/ {2,}/g, " ")
    .replace(/ +\n/g, "\n")
    .trim();
}

/** The site's text choice for one target, or undefined when the entry makes none for it. */
export function siteTextFor(entry: FeedEntry, uid: string, tags: readonly string[]): SiteText | undefined {
  if (!entry.choices) return undefined;
  const choice = choiceFor(entry.choices, uid, tags);
  const site: SiteText = {};
  const text = choice.formatString === undefined ? "" : expandFormat(choice.formatString, entry);
  if (text) site.text = text;
  if (choice.truncate !== undefined) site.truncate = choice.truncate;
  if (choice.appendUrl !== undefined) site.appendUrl = choice.appendUrl;
  return Object.keys(site).length > 0 ? site : undefined;
}

/** The site's text choices of an entry for each of `uids` that it makes one for, by uid. */
export function siteTextsFor(
  entry: FeedEntry,
  uids: readonly string[],
  tagsOf: (uid: string) => readonly string[],
): Record<string, SiteText> {
  const texts: Record<string, SiteText> = {};
  for (const uid of uids) {
    const site = siteTextFor(entry, uid, tagsOf(uid));
    if (site) texts[uid] = site;
  }
  return texts;
}
