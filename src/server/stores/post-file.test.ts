import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import type { Post } from "../../contract/posts.ts";
import { postFile } from "./post-file.ts";
import { PRESETS } from "./presets.ts";

function post(properties: Record<string, unknown>): Post {
  const date = new Date("2026-01-02T03:04:05.000Z");
  return {
    id: "1",
    url: "https://example.org/notes/a/",
    properties: { content: "Hello", ...properties },
    status: "published",
    published: date,
    created: date,
    updated: date,
    deleted: false,
  };
}

const frontMatter = (file: string) =>
  parse(/^---\n([\s\S]*?)\n---\n/.exec(file)?.[1] ?? "") as Record<string, unknown>;

describe("an unlisted post's front matter", () => {
  it("says unlisted to every generator, with the key each one reads to leave it out of lists", () => {
    const hugo = frontMatter(postFile(post({ visibility: "unlisted" }), PRESETS.hugo));
    assert.equal(hugo.visibility, "unlisted");
    assert.deepEqual(hugo.build, { list: "never" });
    const eleventy = frontMatter(postFile(post({ visibility: ["unlisted"] }), PRESETS.eleventy));
    assert.equal(eleventy.visibility, "unlisted");
    assert.equal(eleventy.eleventyExcludeFromCollections, true);
    const jekyll = frontMatter(postFile(post({ visibility: "unlisted" }), PRESETS.jekyll));
    assert.equal(jekyll.visibility, "unlisted");
    assert.equal(jekyll.sitemap, false);
  });

  it("a public post has none of those keys", () => {
    for (const preset of Object.values(PRESETS)) {
      const data = frontMatter(postFile(post({ visibility: "public" }), preset));
      for (const key of ["visibility", "build", "eleventyExcludeFromCollections", "sitemap"])
        assert.equal(data[key], undefined, `${preset.name}: ${key}`);
    }
  });
});

describe("a post's file: its text after the front matter", () => {
  const body = (content: unknown, extra: Record<string, unknown> = {}) =>
    postFile(post({ content, ...extra }), PRESETS.hugo).split(/^---\n[\s\S]*?\n---\n/)[1];

  it("is the HTML when the content has some, else its text or value, else the summary, else nothing", () => {
    assert.equal(body({ html: "<p>Hi</p>", text: "Hi", value: "v" }), "<p>Hi</p>\n");
    assert.equal(body({ text: "Hi", value: "v" }), "Hi\n");
    assert.equal(body({ value: "v" }), "v\n");
    assert.equal(body({ html: 5, text: ["x"], value: null }, { summary: "In short" }), "In short\n");
    assert.equal(body(undefined, { summary: "In short" }), "In short\n");
    assert.equal(body("plain", { summary: "In short" }), "plain\n", "a string content first");
    assert.equal(body(["not", "a", "string"]), "");
    assert.equal(body(undefined), "");
    assert.equal(body(null, { summary: "In short" }), "In short\n", "a null content is none");
    assert.equal(body(undefined, { summary: ["x"] }), "");
  });

  it("ends with one newline: added when missing, never doubled, none after nothing", () => {
    assert.equal(body("a\nb"), "a\nb\n");
    assert.equal(body("a\n"), "a\n");
    assert.equal(body("\na"), "\na\n");
    assert.equal(body(""), "");
    assert.ok(postFile(post({ content: "" }), PRESETS.hugo).endsWith("---\n"));
  });

  it("keeps a long title on one line of front matter", () => {
    const title = `A ${"long ".repeat(40)}title`;
    const file = postFile(post({ name: title }), PRESETS.jekyll);
    assert.ok(
      file.split("\n").some((line) => line === `title: ${title}`),
      file,
    );
  });
});
