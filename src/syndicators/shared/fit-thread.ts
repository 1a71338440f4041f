// A long copy as a thread (decision 0055): the body split by the target's rule, the hashtags with the
// first post (where tag timelines show it), the permalink with the first or the last as the user
// chose, and " 1/3" after each when numbered. A thread stands for the whole post as a cut text
// does, so it links to the post unless the link rule is "never".
import type { AppendUrl } from "./copy-template.ts";
import { type ChunkPlace, splitThread } from "./split-thread.ts";
import type { ThreadSettings } from "./thread-options.ts";

export interface ThreadFitInput {
  body: string;
  hashtags: string;
  permalink: string | undefined;
  link: AppendUrl;
  fits: (text: string) => boolean;
  settings: ThreadSettings;
}

const join = (...parts: string[]) => parts.filter(Boolean).join("\n\n");

/** The posts of the thread, in order, or undefined when the body makes none within `settings.max`. */
export function fitThread({
  body,
  hashtags,
  permalink,
  link,
  fits,
  settings,
}: ThreadFitInput): string[] | undefined {
  const url = link === "never" ? "" : (permalink ?? "");
  const linked = (place: ChunkPlace) => (settings.permalink === "first" ? place.index === 0 : place.last);
  const dress = (piece: string, place: ChunkPlace) => {
    const text = join(piece, place.index === 0 ? hashtags : "", linked(place) ? url : "");
    return settings.numbering ? `${text} ${place.index + 1}/${place.total}` : text;
  };
  const thread = splitThread({ text: body, dress, fits, max: settings.max });
  if (thread && thread.chunks.length > 1) return thread.chunks;
  return undefined;
}
