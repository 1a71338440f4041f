// Decision 0032, bad input: a slug with "/" or a control character, a path template that leaves the
// repository or the site's folder: each refused when a file would be written, never cleaned up into
// some other path. Front matter is YAML written by the yaml package: no value can end it early.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import type { Post } from "../../contract/posts.ts";
import { dateFormatter, repositoryPath } from "./path-template.ts";
import { postFile } from "./post-file.ts";
import { PRESETS } from "./presets.ts";

const utc = dateFormatter("UTC");
const date = new Date("2024-05-01T12:00:00Z");

function post(properties: Record<string, unknown>, status: Post["status"] = "published"): Post {
  return {
    id: "1",
    url: "https://example.org/notes/x/",
    properties,
    status,
    published: date,
    created: date,
    updated: date,
    deleted: false,
  };
}

describe("repository paths", () => {
  it("expand the presets' templates", () => {
    assert.equal(
      repositoryPath(PRESETS.hugo.types.note.path, { slug: "hello", date }, utc),
      "content/notes/hello.md",
    );
    assert.equal(
      repositoryPath(PRESETS.jekyll.types.note.path, { slug: "hello", date }, utc),
      "_posts/2024-05-01-hello.md",
    );
    assert.equal(
      repositoryPath(PRESETS.eleventy.types.note.path, { slug: "hello", date }, utc),
      "notes/hello.md",
    );
    assert.equal(
      repositoryPath("content/{slug}.md", { slug: "hello", date }, utc, "site"),
      "site/content/hello.md",
    );
  });

  it("refuse a slug with a slash, a dot-dot or a control character", () => {
    for (const slug of ["a/b", "../x", "..", "x\u0007y", "x\ny", "X", ""])
      assert.throws(
        () => repositoryPath("content/{slug}.md", { slug, date }, utc),
        /cannot be part of a file path/,
        slug,
      );
  });

  it("refuse a template that leads outside the repository or the site's folder", () => {
    assert.throws(() => repositoryPath("../{slug}.md", { slug: "a", date }, utc), /outside the repository/);
    assert.throws(
      () => repositoryPath("content/../../{slug}.md", { slug: "a", date }, utc),
      /outside the repository/,
    );
    assert.throws(() => repositoryPath("/etc/{slug}", { slug: "a", date }, utc), /outside the repository/);
    assert.throws(
      () => repositoryPath("../other/{slug}.md", { slug: "a", date }, utc, "site"),
      /outside the site's folder/,
    );
  });
});

describe("front matter", () => {
  it("keeps a title holding --- and newlines one quoted value", () => {
    const file = postFile(
      post({ name: "Title\n---\ndraft: true\nlayout: x", content: "body" }),
      PRESETS.jekyll,
    );
    const [, yaml, body] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(file) ?? [];
    const data = parse(yaml ?? "") as Record<string, unknown>;
    assert.equal(data.title, "Title\n---\ndraft: true\nlayout: x");
    assert.equal(data.layout, "post", "the preset's layout, not the title's");
    assert.equal(data.draft, undefined);
    assert.equal(body, "body\n");
  });

  it("writes each preset's keys: Hugo draft, Jekyll layout, syndication links for all", () => {
    const links = { content: "x", syndication: ["https://social.example/@me/1"], category: ["a"] };
    const hugo = parse(postFile(post(links, "draft"), PRESETS.hugo).split("---\n")[1] ?? "");
    assert.deepEqual(hugo, {
      date: date.toISOString(),
      draft: true,
      tags: ["a"],
      syndication: links.syndication,
    });
    const eleventy = parse(postFile(post(links), PRESETS.eleventy).split("---\n")[1] ?? "");
    assert.deepEqual(eleventy, { date: date.toISOString(), tags: ["a"], syndication: links.syndication });
  });
});
