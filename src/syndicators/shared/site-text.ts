// The site's choice for a copy's text (a feed entry's POSSE Party `<posse:post>`, decision 0038)
// laid over the target's own options: the site's text replaces the template's (and, being the whole
// text the site wrote, gets no hashtags added), its `append_url` replaces `appendUrl`, and its
// `truncate: false` forbids the cut. The user's own words win over all of it: a caller that has
// them never gets here. Shared by every syndicator that fits a text to a limit, so that they agree.
import type { PostText } from "../../contract/jf2.ts";
import type { PostProperties, SiteText } from "../../contract/syndicator.ts";
import { type AppendUrl, type CopyTemplate, copyText } from "./copy-template.ts";

export interface SiteFit {
  /** The body of the copy: the site's text, else the target's template's. */
  text: PostText | undefined;
  /** When the permalink goes into the text (undefined: the target's rule for this text). */
  appendUrl: AppendUrl | undefined;
  /** The post's categories may be added as hashtags (not to a text the site wrote whole). */
  hashtags: boolean;
  /** false: the text is never cut. */
  mayCut: boolean;
}

/**
 * The site's choice over the target's options.
 *
 * @example
 * siteFit(properties, { template: undefined, appendUrl: undefined }, { text: "New: Hello", appendUrl: true, truncate: false })
 * // { text: { text: "New: Hello", source: "content" }, appendUrl: "always", hashtags: false, mayCut: false }
 */
export function siteFit(
  properties: PostProperties,
  options: { template?: CopyTemplate | undefined; appendUrl?: AppendUrl | undefined },
  site: SiteText | undefined,
): SiteFit {
  const written = site?.text !== undefined;
  return {
    text: written ? { text: site.text ?? "", source: "content" } : copyText(properties, options.template),
    appendUrl: site?.appendUrl === undefined ? options.appendUrl : site.appendUrl ? "always" : "never",
    hashtags: !written,
    mayCut: site?.truncate !== false,
  };
}
