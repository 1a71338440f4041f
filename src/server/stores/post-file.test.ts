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
