// Decision 0032: publication.store, .preset and .postTypes are validated at start like every option:
// one line per mistake, naming the option and what to write instead. A path template that leaves
// the repository, a token in a remote's URL, a missing token variable: each refused.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError, loadConfig } from "./load.ts";

const cwd = mkdtempSync(join(tmpdir(), "possekit-store-config-"));
after(() => rmSync(cwd, { recursive: true, force: true }));
const SECRETS = { SECRET: "a-test-secret-of-32-characters..", PASSWORD: "a test password" };

function problemsOf(publication: Record<string, unknown>, env: Record<string, string> = {}): string[] {
  try {
    loadConfig({ config: { publication }, env: { ...SECRETS, ...env }, cwd });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`);
    return error.problems;
  }
  assert.fail("the configuration was accepted");
}

describe("the publication store options", () => {
  it("default to the pages store, with post URLs on this server", () => {
    const config = loadConfig({ config: { application: { port: 4100 } }, env: SECRETS, cwd });
    assert.deepEqual(config.store, { type: "pages" });
    assert.equal(config.publication.me, "http://localhost:4100/");
    assert.equal(config.publication.postUrlPattern, "{me}notes/{slug}/");
  });

  it("resolve a git store with a preset, its per-type templates and the token from the environment", () => {
    const config = loadConfig({
      config: {
        publication: {
          store: { type: "git", url: "https://git.example.org/me/site.git", tokenEnv: "SITE_TOKEN" },
          preset: "hugo",
          postTypes: { note: { path: "content/micro/{slug}.md", url: "{me}micro/{slug}/" } },
        },
      },
      env: { ...SECRETS, SITE_TOKEN: "t0ken" },
      cwd,
    });
    assert.equal(config.store.type, "git");
    assert.ok(config.store.type === "git");
    assert.equal(config.store.token, "t0ken");
    assert.equal(config.store.branch, "main");
    assert.deepEqual(config.store.paths, {
      note: "content/micro/{slug}.md",
      article: "content/articles/{slug}.md",
      photo: "content/photos/{slug}.md",
    });
    assert.equal(config.publication.postTypeUrls.note, "{me}micro/{slug}/");
    assert.equal(config.publication.postTypeUrls.article, "{me}articles/{slug}/");
  });

  it("refuse each mistake in one line naming the option and what to write", () => {
    assert.deepEqual(problemsOf({ store: { type: "ftp" } }), [
      'publication.store.type: must be {"type": "pages"}, {"type": "folder", "path": "..."} or {"type": "git", "url": "..."}',
    ]);
    assert.deepEqual(problemsOf({ store: { type: "git", url: "/srv/site.git" } }), [
      'publication.preset: a git store writes files for a site generator; write "hugo", "jekyll" or "eleventy"',
    ]);
    assert.deepEqual(problemsOf({ store: { type: "folder", path: "site" }, preset: "gatsby" }), [
      'publication.preset: must be "hugo", "jekyll" or "eleventy"',
    ]);
    assert.deepEqual(problemsOf({ preset: "hugo" }), [
      'publication.preset: "hugo" is only used by a folder or git store; remove it, or write "store": {"type": "git", "url": "..."}',
    ]);
    assert.deepEqual(
      problemsOf({
        store: { type: "git", url: "https://me:secret@git.example.org/site.git" },
        preset: "hugo",
      }),
      [
        'publication.store.url: must not carry credentials; write the URL without "user:token@" and put the token in the environment variable named by tokenEnv',
      ],
    );
    assert.deepEqual(
      problemsOf({
        store: { type: "git", url: "https://git.example.org/site.git", tokenEnv: "NO_SUCH_TOKEN" },
        preset: "hugo",
      }),
      [
        "publication.store.tokenEnv: the environment variable NO_SUCH_TOKEN is not set; set it to the token that may push to https://git.example.org/site.git",
      ],
    );
    assert.deepEqual(problemsOf({ postTypes: { note: { path: "content/{slug}.md" } } }), [
      "publication.postTypes.note.path: the pages store writes no files; remove it, or choose a folder or git store",
    ]);
    assert.deepEqual(problemsOf({ postTypes: { reel: { url: "{me}{slug}" } } }), [
      "publication.postTypes.reel: unknown option; known options here: note, article, photo",
    ]);
    assert.deepEqual(problemsOf({ postTypes: { note: { url: "{me}{year}/{slug}/" } } }), [
      "publication.postTypes.note.url: uses {year}; only {me}, {slug}, {yyyy}, {MM} and {dd} are known",
    ]);
  });

  it("refuse a path template that leaves the repository, is absolute, or lacks {slug}", () => {
    const git = { type: "git", url: "/srv/site.git" };
    assert.deepEqual(
      problemsOf({ store: git, preset: "hugo", postTypes: { note: { path: "../../etc/{slug}.md" } } }),
      [
        'publication.postTypes.note.path: must stay inside the repository: remove "..", e.g. "content/notes/{slug}.md"',
      ],
    );
    assert.deepEqual(
      problemsOf({ store: git, preset: "hugo", postTypes: { note: { path: "/etc/{slug}.md" } } }),
      [
        'publication.postTypes.note.path: must be relative to the repository, e.g. "content/notes/{slug}.md", not an absolute path',
      ],
    );
    assert.deepEqual(
      problemsOf({ store: git, preset: "hugo", postTypes: { note: { path: "content/note.md" } } }),
      ['publication.postTypes.note.path: must contain {slug}, e.g. "content/notes/{slug}.md"'],
    );
    assert.deepEqual(problemsOf({ store: { ...git, path: "../outside" }, preset: "hugo" }), [
      'publication.store.path: must be a folder inside the repository, e.g. "site", without ".." or a leading "/"',
    ]);
    assert.deepEqual(problemsOf({ store: { ...git, branch: "--upload-pack=evil" }, preset: "hugo" }), [
      'publication.store.branch: must be a plain branch name, e.g. "main"',
    ]);
  });
});
