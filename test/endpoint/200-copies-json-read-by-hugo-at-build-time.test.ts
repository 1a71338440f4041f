// Decision 0039: the Hugo example of docs/copies.md, as written there, run by the real Hugo against
// a running possekit: a post of a Hugo site (known here from elsewhere, as a feed's entry is) gets
// the links to its copies at build time.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

const SITE = "https://blog.example/";

/** The one go-html-template block of docs/copies.md. */
function hugoExample(): string {
  const docs = readFileSync(join(PACKAGE_ROOT, "docs", "copies.md"), "utf8");
  const block = /```go-html-template\n([\s\S]*?)```/.exec(docs)?.[1];
  assert.ok(block, "docs/copies.md has the Hugo example");
  return block;
}

describe("the Hugo example of docs/copies.md links a post to its copies", () => {
  let target: Target | undefined;
  let app: EndpointServer | undefined;
  let folder = "";

  before(async () => {
    ({ target, app } = await startWithOneTarget(pgliteEngine, {
      pluginOptions: { targets: { checkAtStart: false }, schedule: { enabled: false } },
    }));
    folder = mkdtempSync(join(tmpdir(), "possekit-hugo-copies-"));
  });
  after(async () => {
    await closeServerThenTargets(app, target);
    rmSync(folder, { recursive: true, force: true });
  });

  it("builds the page with a u-syndication link to each copy", async () => {
    assert.ok(app && target);
    const known = app.server.host.knownPosts;
    assert.ok(known);
    const post = `${SITE}posts/hello/`;
    await known.record({
      origin: "feed:blog",
      url: post,
      published: new Date(),
      properties: { content: "Hello from Hugo", "mp-syndicate-to": [target.uid] },
    });
    const sent = await app.syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(sent.status, 200, await sent.text());
    const copy = target.sandbox.statuses[0]?.url;
    assert.ok(copy);

    const source = join(folder, "site");
    const write = (path: string, text: string) => {
      mkdirSync(join(source, path, ".."), { recursive: true });
      writeFileSync(join(source, path), text);
    };
    write("config.toml", `baseURL = "${SITE}"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n`);
    write("content/posts/hello.md", '---\ntitle: "Hello"\n---\nHello from Hugo\n');
    write("layouts/_default/single.html", '<article>{{ .Content }}{{ partial "copies.html" . }}</article>\n');
    write("layouts/_default/list.html", "<main></main>\n");
    write(
      "layouts/partials/copies.html",
      hugoExample().replace("https://example.org/syndicate/copies.json", `${app.endpoint}/copies.json`),
    );
    // Not execFileSync: the server answering Hugo runs in this very process.
    await promisify(execFile)(process.env.HUGO_PATH ?? "/usr/bin/hugo", [
      "--quiet",
      "--source",
      source,
      "--destination",
      join(folder, "public"),
      "--cacheDir",
      join(folder, "cache"),
    ]);
    const page = readFileSync(join(folder, "public", "posts", "hello", "index.html"), "utf8");
    assert.match(
      page,
      new RegExp(
        `<a class="u-syndication" rel="syndication" href="${copy.replace(/[.?/]/g, "\\$&")}">@demo@`,
      ),
    );
  });
});
