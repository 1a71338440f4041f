// Decision 0039, end to end with real software: a site built elsewhere publishes only a feed;
// possekit (`possekit serve`, a child process as a user runs it) reads it, sends its newest entries
// to the sandbox Mastodon by itself (`backfill: 2`), and serves copies.json. The site is then built
// by Debian's Hugo and by Eleventy from npm, each with exactly the example of docs/copies.md (read
// from the file here, so that the docs and this test cannot drift apart), and each built page of a
// sent post links to its copy; the page of a post never sent shows no list. One post's link in the
// feed ends with a slash, the other's does not, as feeds write them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { eventually } from "../helpers/eventually.ts";
import { FeedSite } from "../sources/feeds/feed-site.ts";
import { ensureEleventy } from "./eleventy.ts";

const ENDPOINT_PACKAGE = "@possekit/endpoint-syndicate";
const MASTODON_PACKAGE = "@possekit/syndicator-mastodon";
const SITE = "https://blog.example/";
const DOCS_SITE = "https://example.org/";
const DOCS_COPIES = "https://example.org/syndicate/copies.json";
const run = promisify(execFile);

/** The fenced block of docs/copies.md in `language` under the heading `section`. */
function docsExample(section: string, language: string): string {
  const docs = readFileSync(join(PACKAGE_ROOT, "docs", "copies.md"), "utf8");
  const start = docs.indexOf(`\n## ${section}\n`);
  assert.ok(start >= 0, `docs/copies.md has a section "${section}"`);
  const end = docs.indexOf("\n## ", start + 1);
  const text = docs.slice(start, end === -1 ? undefined : end);
  const blocks = [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))];
  assert.equal(blocks.length, 1, `one ${language} example under "${section}" in docs/copies.md`);
  return blocks[0]?.[1] ?? "";
}

/** The example with the documented addresses turned into this test's. */
function pointed(example: string, copiesUrl: string): string {
  assert.ok(example.includes(DOCS_COPIES), "the example fetches the documented copies.json address");
  return example.replaceAll(DOCS_COPIES, copiesUrl).replaceAll(`"${DOCS_SITE}"`, `"${SITE}"`);
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

const posts = {
  slash: { path: "posts/with-slash/", url: `${SITE}posts/with-slash/`, title: "With a slash" },
  bare: { path: "posts/without-slash/", url: `${SITE}posts/without-slash`, title: "Without a slash" },
  quiet: { path: "posts/never-sent/", url: `${SITE}posts/never-sent/`, title: "Never sent" },
};

describe("the copies.json examples of docs/copies.md, built by Hugo and by Eleventy", () => {
  let site: FeedSite | undefined;
  let mastodon: MastodonSandbox | undefined;
  let server: ChildServer | undefined;
  let folder = "";
  /** The copy's URL of each sent post, by key of `posts`. */
  const copies = new Map<string, string>();

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "possekit-copies-builds-"));
    site = await new FeedSite("rss").start();
    const now = Date.now();
    site.entries = Object.values(posts).map((post, index) => ({
      id: `urn:blog:${post.path}`,
      url: post.url,
      title: post.title,
      content: `<p>${post.title}.</p>`,
      published: new Date(now - index * 3_600_000).toISOString(),
    }));
    mastodon = await startMastodonSandbox({ accessToken: "copies-builds-token" });
    const uid = `${mastodon.url}/@${mastodon.user}`;
    server = await startChildServer({
      config: {
        fetch: { allowPrivate: true },
        plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
        [ENDPOINT_PACKAGE]: {
          schedule: { enabled: true, whenLive: false, maxSleepMs: 500 },
          targets: { checkAtStart: false },
          feeds: [{ url: `${site.url}/feed`, targets: [uid], backfill: 2 }],
        },
        [MASTODON_PACKAGE]: { url: mastodon.url, user: mastodon.user },
      },
      env: { MASTODON_ACCESS_TOKEN: mastodon.accessToken },
    });
    const sandbox = mastodon;
    await eventually("the two newest entries are sent", async () =>
      sandbox.statuses.length >= 2 ? true : undefined,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nThe server wrote:\n${server?.output()}`);
    });
    for (const [key, post] of Object.entries(posts)) {
      const status = sandbox.statuses.find((candidate) => candidate.text.includes(post.title));
      if (status) copies.set(key, status.url);
    }
  });
  after(async () => {
    await server?.stop();
    await site?.close();
    await mastodon?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("copies.json lists the two sent posts under their URLs as the feed wrote them", async () => {
    assert.ok(server && mastodon);
    assert.equal(mastodon.statuses.length, 2, "backfill: 2 sends the two newest entries, once each");
    assert.deepEqual([...copies.keys()].sort(), ["bare", "slash"]);
    const copiesJson = `${server.url}/syndicate/copies.json`;
    // The sandbox holds a status a moment before possekit has recorded the answer.
    const body = await eventually("copies.json lists both copies", async () => {
      const answer = await fetch(copiesJson);
      assert.equal(answer.status, 200);
      const json = (await answer.json()) as { posts: Record<string, Array<{ url: string }>> };
      return Object.keys(json.posts).length >= 2 ? json : undefined;
    });
    assert.deepEqual(Object.keys(body.posts).sort(), [posts.bare.url, posts.slash.url].sort());
    assert.equal(body.posts[posts.bare.url]?.[0]?.url, copies.get("bare"));
  });

  /** Asserts the built pages: a u-syndication link to its copy on each sent post, none elsewhere. */
  function assertBuilt(output: string): void {
    for (const [key, post] of Object.entries(posts)) {
      const page = readFileSync(join(output, post.path, "index.html"), "utf8");
      assert.match(page, new RegExp(literally(post.title)), `${post.path} is the post's page`);
      const copy = copies.get(key);
      if (copy)
        assert.match(
          page,
          new RegExp(`<a class="u-syndication" rel="syndication" href="${literally(copy)}">@`),
          `${post.path} links to its copy`,
        );
      else assert.doesNotMatch(page, /class="copies"|u-syndication/, `${post.path} has no copy to show`);
    }
  }

  it("Hugo's partial, as documented, builds each sent post's page with a link to its copy", async () => {
    assert.ok(server);
    const source = join(folder, "hugo");
    write(source, {
      "config.toml": `baseURL = "${SITE}"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n`,
      "layouts/_default/single.html":
        '<article><h1>{{ .Title }}</h1>{{ .Content }}{{ partial "copies.html" . }}</article>\n',
      "layouts/_default/list.html": "<main></main>\n",
      "layouts/partials/copies.html": pointed(
        docsExample("Hugo", "go-html-template"),
        `${server.url}/syndicate/copies.json`,
      ),
      ...Object.fromEntries(
        Object.values(posts).map((post) => [
          `content/${post.path.replace(/\/$/, "")}.md`,
          `---\ntitle: "${post.title}"\n---\n${post.title}.\n`,
        ]),
      ),
    });
    const output = join(folder, "hugo-public");
    await run(process.env.HUGO_PATH ?? "/usr/bin/hugo", [
      "--quiet",
      "--source",
      source,
      "--destination",
      output,
      "--cacheDir",
      join(folder, "hugo-cache"),
    ]);
    assertBuilt(output);
  });

  it("Eleventy's data file and layout, as documented, build each sent post's page with a link to its copy", async () => {
    assert.ok(server);
    const eleventy = ensureEleventy();
    const source = join(folder, "eleventy");
    write(source, {
      "package.json": '{ "private": true, "type": "module" }\n',
      "_data/copies.js": pointed(docsExample("Eleventy", "js"), `${server.url}/syndicate/copies.json`),
      "_includes/post.njk": `<article><h1>{{ title }}</h1>{{ content | safe }}\n${docsExample("Eleventy", "njk")}</article>\n`,
      ...Object.fromEntries(
        Object.values(posts).map((post) => [
          `${post.path.replace(/\/$/, "")}.md`,
          `---\nlayout: post.njk\ntitle: "${post.title}"\n---\n${post.title}.\n`,
        ]),
      ),
    });
    const output = join(folder, "eleventy-public");
    await run(process.execPath, [eleventy, "--quiet", `--input=${source}`, `--output=${output}`], {
      cwd: source,
    });
    assertBuilt(output);
  });
});
