// The options that make a long post a thread (decision 0055), the same for every target that can reply
// to itself: off by default (a long post is cut, with a link to the rest, as it always was).
import { z } from "zod";
import { booleanOption, positiveInteger } from "../../contract/options/option-schemas.ts";
import type { ThreadOptions } from "../../contract/syndicator.ts";

export type ThreadPermalink = ThreadOptions["threadPermalink"];

export interface ThreadSettings {
  /** More chunks than this: the post is cut and linked instead. */
  max: number;
  /** Each chunk ends with " 1/3". */
  numbering: boolean;
  /** The chunk that carries the link to the post. */
  permalink: ThreadPermalink;
}

export const defaultThreadMax = 10;

/** The option fields, spread into a target's option schema. */
export const threadOptionFields = () => ({
  /** A post longer than the limit becomes a thread instead of being cut. */
  thread: booleanOption(false),
  /** At most this many posts in a thread; a longer text is cut and linked as without `thread`. */
  threadMax: positiveInteger(defaultThreadMax),
  /** Number the posts of a thread ("1/3"). */
  threadNumbering: booleanOption(false),
  /** Which post of a thread links to the original: "first" or "last". */
  threadPermalink: z.enum(["first", "last"], { error: 'must be "first" or "last"' }).default("last"),
});

/** The thread options of a target's parsed options, as the page shows them. */
export function threadOptionsOf(options: ThreadOptions): ThreadOptions {
  const { thread, threadMax, threadNumbering, threadPermalink } = options;
  return { thread, threadMax, threadNumbering, threadPermalink };
}

/**
 * The settings when threads are on, else undefined: on by the user's choice for this post when
 * there is one (decision 0058), else by the target's `thread` option.
 */
export function threadSettings(options: ThreadOptions, choice?: boolean): ThreadSettings | undefined {
  if (!(choice ?? options.thread)) return undefined;
  return { max: options.threadMax, numbering: options.threadNumbering, permalink: options.threadPermalink };
}
