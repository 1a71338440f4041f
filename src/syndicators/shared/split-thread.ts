// Splitting a long text into the posts of a thread (decision 0055). The text is cut only between words:
// after a paragraph if one ends late enough in the chunk, else after a sentence, else after any word
// (in Chinese and Japanese, which put no spaces between words, between the words the Unicode word
// segmenter finds). Never inside a link, a mention, a hashtag or a grapheme: a half link leads
// nowhere, and half an emoji is two broken ones. Each chunk is counted by the target's own rule, as
// it will be sent (with what the caller adds: numbering, hashtags, the permalink).
import { findUrls } from "./urls.ts";

export interface ChunkPlace {
  /** 0-based. */
  index: number;
  /** How many chunks the thread has (for "1/3"). */
  total: number;
  last: boolean;
}

export interface SplitInput {
  text: string;
  /** The chunk as sent, made from its piece of the text (trimmed): numbering, hashtags, permalink. */
  dress: (piece: string, place: ChunkPlace) => string;
  /** The target's rule for one post. */
  fits: (chunk: string) => boolean;
  /** More chunks than this: no thread (the caller cuts and links instead). */
  max: number;
}

export interface Thread {
  /** Consecutive slices of the text: joined, they are the text itself. */
  pieces: string[];
  /** What is sent, chunk by chunk: each piece trimmed and dressed. */
  chunks: string[];
}

/** A cut position and how good a place it is to cut. */
interface Boundary {
  at: number;
  level: Level;
}

enum Level {
  word = 1,
  sentence = 2,
  paragraph = 3,
}

/**
 * A better boundary is taken over the farthest one only when it keeps at least this share of what
 * would fit: a paragraph break near the start of a chunk would otherwise make a thread of stubs.
 */
const preferredShare = 0.5;

const unspacedScript = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** Closing punctuation never begins a chunk (。、」 after a word end the word, they do not start the next). */
const noLeadingPunctuation = /^[\p{Pe}\p{Pf}\p{Po}]/u;
const sentenceEnd = /[.!?…。！？](["'”’»)\]」』）]*)$/u;
const mention = /(?<![\w@/])@[\w.-]*\w(?:@[\w.-]*\w)?/gu;
const hashtag = /(?<![\p{L}\p{N}_&/#])#[\p{L}\p{N}_]+/gu;

const words = new Intl.Segmenter(undefined, { granularity: "word" });
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Ranges (UTF-16, end exclusive) that no cut may fall strictly inside. */
function protectedRanges(text: string): [number, number][] {
  const ranges: [number, number][] = findUrls(text).map(({ start, end }) => [start, end]);
  for (const pattern of [mention, hashtag]) {
    for (const match of text.matchAll(pattern)) ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

function graphemeStarts(text: string): Set<number> {
  const starts = new Set<number>();
  for (const { index } of graphemeSegmenter.segment(text)) starts.add(index);
  starts.add(text.length);
  return starts;
}

/** Every place the text may be cut, in order, each with its level. A cut keeps spaces with the left. */
export function boundaries(text: string): Boundary[] {
  const ranges = protectedRanges(text);
  const starts = graphemeStarts(text);
  const inside = (at: number) => ranges.some(([start, end]) => at > start && at < end);
  const found = new Map<number, Level>();
  // After a run of white space: a paragraph, a sentence or a word ends there.
  for (const match of text.matchAll(/\s+/gu)) {
    const at = match.index + match[0].length;
    if (at >= text.length || match.index === 0) continue;
    const before = text.slice(Math.max(0, match.index - 8), match.index);
    const level =
      (match[0].match(/\n/g)?.length ?? 0) >= 2
        ? Level.paragraph
        : sentenceEnd.test(before)
          ? Level.sentence
          : Level.word;
    found.set(at, level);
  }
  // Between words of a script written without spaces.
  for (const { index } of words.segment(text)) {
    if (index === 0 || found.has(index)) continue;
    const before = text[index - 1] ?? "";
    const after = text.slice(index, index + 2);
    if (/\s/u.test(before) || /^\s/u.test(after) || noLeadingPunctuation.test(after)) continue;
    // What ends here (a sentence's mark and its closing quotes fit in eight units).
    const previous = text.slice(Math.max(0, index - 8), index);
    const lastChar = Array.from(previous).at(-1) ?? "";
    const nextChar = String.fromCodePoint(after.codePointAt(0) ?? 32);
    if (!unspacedScript.test(lastChar) && !unspacedScript.test(nextChar) && !sentenceEnd.test(previous))
      continue;
    found.set(index, sentenceEnd.test(previous) ? Level.sentence : Level.word);
  }
  return [...found]
    .filter(([at]) => starts.has(at) && !inside(at))
    .sort(([a], [b]) => a - b)
    .map(([at, level]) => ({ at, level }));
}

/** The last index of `list` for which `test` holds, when it holds for a prefix of the list. */
function lastHolding<T>(list: T[], test: (item: T) => boolean): number {
  let low = -1;
  let high = list.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (test(list[middle] as T)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The pieces for a thread that numbers itself out of `total`, or undefined when it cannot be cut. */
function cut(input: SplitInput, all: Boundary[], total: number): string[] | undefined {
  const { text, dress, fits } = input;
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    const index = pieces.length;
    const rest = text.slice(start);
    if (fits(dress(rest.trim(), { index, total, last: true }))) {
      pieces.push(rest);
      return pieces;
    }
    if (pieces.length >= input.max) return undefined;
    const ahead = all.filter((boundary) => boundary.at > start);
    const place = { index, total, last: false };
    const farthest = lastHolding(ahead, (boundary) =>
      fits(dress(text.slice(start, boundary.at).trim(), place)),
    );
    if (farthest < 0) return undefined;
    const reach = (ahead[farthest] as Boundary).at - start;
    const fitting = ahead.slice(0, farthest + 1);
    let chosen = fitting[farthest] as Boundary;
    for (const level of [Level.paragraph, Level.sentence]) {
      const best = fitting.findLast((boundary) => boundary.level >= level);
      if (best && best.at - start >= reach * preferredShare) {
        chosen = best;
        break;
      }
    }
    pieces.push(text.slice(start, chosen.at));
    start = chosen.at;
  }
  return pieces;
}

/**
 * The thread `text` makes, at most `max` chunks each of which `fits`, or undefined when there is
 * none (more chunks needed, or one word, link, mention or hashtag longer than a post).
 */
export function splitThread(input: SplitInput): Thread | undefined {
  const all = boundaries(input.text);
  // Numbering ("1/n") takes room that depends on n: cut for a guess of n until the guess holds.
  // The guess only grows, so this ends; a thread shorter than its guess is numbered by its length,
  // which is never longer to write.
  let total = 1;
  for (;;) {
    const pieces = cut(input, all, total);
    if (!pieces) return undefined;
    if (pieces.length <= total) {
      const count = pieces.length;
      const chunks = pieces.map((piece, index) =>
        input.dress(piece.trim(), { index, total: count, last: index === count - 1 }),
      );
      if (!chunks.every(input.fits)) return undefined;
      return { pieces, chunks };
    }
    total = pieces.length;
  }
}
