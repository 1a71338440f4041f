// The thread splitter (decision 0055): every chunk within the target's limit, counted its way; nothing
// cut inside a link, a mention, a hashtag or a grapheme; nothing lost; paragraphs before sentences
// before words; no more than `max` chunks.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { countGraphemes, graphemes, utf8Length } from "../../contract/graphemes.ts";
import { fitsBluesky } from "../bluesky/bluesky-post-text.ts";
import { mastodonLength } from "../mastodon/mastodon-length.ts";
import { type ChunkPlace, splitThread } from "./split-thread.ts";

const plain = (piece: string) => piece;
const numbered = (piece: string, { index, total }: ChunkPlace) => `${piece} ${index + 1}/${total}`;
const within = (limit: number) => (text: string) => countGraphemes(text) <= limit;

const URL = "https://example.org/a/very/long/path/that/counts/23/on/mastodon?q=1";
const MENTION = "@alice@social.example";
const HASHTAG = "#Zusammenarbeit";
const EMOJI = "👩🏽‍💻👨‍👩‍👧‍👦🏳️‍🌈";
const CJK = "東京の天気は晴れです今日はとても暑い";
/** What is never cut (the CJK run may be, between its words). */
const WHOLE = [URL, MENTION, HASHTAG, EMOJI];

/** Text in which each unit comes after `padding` graphemes, so that every limit meets it somewhere. */
function fixture(padding: number): string {
  const pad = "word ".repeat(Math.floor(padding / 5)) + "x".repeat(padding % 5);
  return `${pad} ${URL} and ${MENTION} said ${HASHTAG} then ${EMOJI} so ${CJK}. End of the line ${EMOJI} ok ${URL}`.trim();
}

function assertWhole(text: string, pieces: string[], chunks: string[], fits: (chunk: string) => boolean) {
  assert.equal(pieces.join(""), text, "the pieces joined are the text");
  assert.deepEqual(pieces.flatMap(graphemes), graphemes(text), "no grapheme is cut");
  for (const chunk of chunks) assert.ok(fits(chunk), `over the limit: ${JSON.stringify(chunk)}`);
  for (const unit of WHOLE) {
    const inText = text.split(unit).length - 1;
    const inChunks = chunks.reduce((sum, chunk) => sum + chunk.split(unit).length - 1, 0);
    assert.equal(inChunks, inText, `${unit} is whole in the chunks`);
  }
}

describe("splitThread", () => {
  it("cuts the fixture at every position of a link, a mention, a hashtag, an emoji and a CJK run, counting graphemes", () => {
    let threads = 0;
    for (let padding = 0; padding <= 70; padding++) {
      const text = fixture(padding);
      for (const limit of [72, 95]) {
        const thread = splitThread({ text, dress: plain, fits: within(limit), max: 20 });
        assert.ok(thread, `no thread for padding ${padding}, limit ${limit}`);
        assertWhole(text, thread.pieces, thread.chunks, within(limit));
        assert.deepEqual(
          thread.chunks,
          thread.pieces.map((piece) => piece.trim()),
        );
        threads++;
      }
    }
    assert.equal(threads, 71 * 2);
  });

  it("counts as Mastodon does (every link 23), numbering each chunk 1/n", () => {
    const limit = 60;
    const fits = (text: string) => mastodonLength(text) <= limit;
    for (let padding = 0; padding <= 60; padding++) {
      const text = fixture(padding);
      const thread = splitThread({ text, dress: numbered, fits, max: 20 });
      assert.ok(thread);
      assertWhole(text, thread.pieces, thread.chunks, fits);
      const total = thread.chunks.length;
      thread.chunks.forEach((chunk, index) => {
        assert.ok(chunk.endsWith(` ${index + 1}/${total}`), chunk);
        assert.equal(chunk.slice(0, -` ${index + 1}/${total}`.length), thread.pieces[index]?.trim());
      });
      // A link longer than the limit still fits: Mastodon counts it 23.
      assert.ok(thread.chunks.some((chunk) => chunk.includes(URL)));
    }
  });

  it("counts as Bluesky does: 300 graphemes and 3,000 bytes (CJK and emoji reach the bytes first)", () => {
    const text = Array.from({ length: 12 }, (_, i) => `${EMOJI}${CJK}${i}`)
      .join(" ")
      .repeat(4);
    assert.ok(utf8Length(text) > 3000);
    const thread = splitThread({ text, dress: plain, fits: fitsBluesky, max: 10 });
    assert.ok(thread);
    assert.ok(thread.chunks.length >= 2);
    for (const chunk of thread.chunks) {
      assert.ok(countGraphemes(chunk) <= 300 && utf8Length(chunk) <= 3000);
    }
    assert.equal(thread.pieces.join(""), text);
  });

  it("cuts after a paragraph, then after a sentence, then after a word", () => {
    const first = "One two three four five six seven.";
    const second = "Eight nine ten eleven twelve.";
    const paragraphs = splitThread({ text: `${first}\n\n${second}`, dress: plain, fits: within(60), max: 5 });
    assert.deepEqual(paragraphs?.chunks, [first, second]);
    const sentences = splitThread({
      text: "Alpha beta gamma delta. Epsilon zeta eta theta iota kappa lambda",
      dress: plain,
      fits: within(45),
      max: 5,
    });
    assert.deepEqual(sentences?.chunks, [
      "Alpha beta gamma delta.",
      "Epsilon zeta eta theta iota kappa lambda",
    ]);
    const words = splitThread({ text: "aaaa bbbb cccc dddd eeee", dress: plain, fits: within(10), max: 5 });
    assert.deepEqual(words?.chunks, ["aaaa bbbb", "cccc dddd", "eeee"]);
  });

  it("cuts a CJK run between its words, never before closing punctuation", () => {
    const text = "今日は晴れです。明日は雨でしょう。週末は曇りです。";
    const thread = splitThread({ text, dress: plain, fits: within(10), max: 5 });
    assert.ok(thread);
    assert.equal(thread.pieces.join(""), text);
    for (const chunk of thread.chunks) assert.ok(!/^[。、]/.test(chunk), chunk);
    assert.deepEqual(thread.chunks, ["今日は晴れです。", "明日は雨でしょう。", "週末は曇りです。"]);
  });

  it("never cuts a link even where the link has no spaces around its CJK", () => {
    const link = "https://例え.jp/東京の天気";
    const text = `東京の天気${link}明日`;
    const thread = splitThread({ text, dress: plain, fits: within(25), max: 5 });
    assert.ok(thread);
    assert.ok(
      thread.chunks.some((chunk) => chunk.includes(link)),
      JSON.stringify(thread.chunks),
    );
  });

  it("gives no thread when more than max chunks are needed, or one word is longer than a post", () => {
    const text = "word ".repeat(50).trim();
    assert.equal(splitThread({ text, dress: plain, fits: within(20), max: 3 }), undefined);
    assert.ok(splitThread({ text, dress: plain, fits: within(20), max: 20 }));
    assert.equal(splitThread({ text: `a ${URL} b`, dress: plain, fits: within(30), max: 10 }), undefined);
  });

  it("dresses the last chunk apart (the permalink there) and numbers by the final count", () => {
    const text = "aaaa bbbb cccc dddd eeee ffff";
    const dress = (piece: string, { index, total, last }: ChunkPlace) =>
      `${piece}${last ? " LINK" : ""} ${index + 1}/${total}`;
    const thread = splitThread({ text, dress, fits: within(16), max: 10 });
    assert.ok(thread);
    assert.equal(thread.chunks.at(-1)?.includes("LINK"), true);
    assert.equal(thread.chunks.filter((chunk) => chunk.includes("LINK")).length, 1);
    for (const chunk of thread.chunks) assert.ok(countGraphemes(chunk) <= 16, chunk);
    assert.equal(thread.pieces.join(""), text);
  });
});
