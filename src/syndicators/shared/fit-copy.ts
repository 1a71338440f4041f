// Fitting a copy's text to a target's limit: the text, its hashtags and the permalink, cut at a word
// when they do not fit. Shared by Mastodon and Bluesky, which differ only in how they count and when
// the link belongs in the text; the result says what was done, for the preview.
import type { AppendUrl } from "./copy-template.ts";
import { cutToFit } from "./fit-text.ts";
import { fitThread } from "./fit-thread.ts";
import type { ThreadSettings } from "./thread-options.ts";

export interface FitInput {
  body: string;
  /** "#One #Two", or "" for none. */
  hashtags: string;
  permalink: string | undefined;
  /** When the permalink goes into the text. */
  link: AppendUrl;
  fits: (text: string) => boolean;
  /**
   * false: the body is never cut (the site chose `truncate: false`): a text that does not fit is
   * returned whole, for the preview to show it over the limit and the service to refuse it.
   */
  mayCut?: boolean;
  /** Set: a text that does not fit becomes a thread rather than being cut (decision 0055). */
  thread?: ThreadSettings | undefined;
}

export interface FittedCopy {
  /** The text, or a thread's first post. */
  text: string;
  /** A thread: every post of it in order (two or more; `text` is the first). */
  thread?: string[];
  cut: boolean;
  /** The permalink is in the text. */
  linked: boolean;
}

const join = (...parts: string[]) => parts.filter(Boolean).join("\n\n");

export function fitCopy({
  body,
  hashtags,
  permalink,
  link: rule,
  fits,
  mayCut = true,
  thread,
}: FitInput): FittedCopy {
  const link = rule === "never" ? "" : (permalink ?? "");
  const always = rule === "always" ? link : "";
  const done = (text: string, cut: boolean) => ({ text, cut, linked: Boolean(link) && text.includes(link) });
  const whole = join(body, hashtags, always);
  if (fits(whole)) return done(whole, false);
  // Whole text without hashtags beats cut text with them…
  const withoutHashtags = join(body, always);
  if (hashtags && fits(withoutHashtags)) return done(withoutHashtags, false);
  if (thread) {
    const posts = fitThread({ body, hashtags, permalink, link: rule, fits, settings: thread });
    if (posts) {
      const [first = ""] = posts;
      return {
        text: first,
        cut: false,
        linked: Boolean(link) && posts.some((post) => post.includes(link)),
        thread: posts,
      };
    }
  }
  if (!mayCut) return done(whole, false);
  // …but once the text must be cut anyway (the permalink leads to the rest), hashtags stay if they can.
  for (const tags of [hashtags, ""]) {
    const cut = cutToFit(body, (candidate) => fits(join(candidate, tags, link)));
    if (cut) return done(join(cut, tags, link), true);
  }
  if (link && fits(link)) return done(link, true);
  return done(cutToFit(body, fits) ?? "", true);
}
