// A bare git repository on disk as the site's remote, seeded with a Hugo site (the one the
// end-to-end test builds), and the git commands a test uses to look at it or move it on as another
// writer would. Always the system git, with an argument array.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const IDENTITY = {
  GIT_AUTHOR_NAME: "Someone Else",
  GIT_AUTHOR_EMAIL: "else@example.org",
  GIT_COMMITTER_NAME: "Someone Else",
  GIT_COMMITTER_EMAIL: "else@example.org",
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "commit.gpgsign=false", ...args], {
    cwd,
    env: { ...process.env, ...IDENTITY },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A minimal Hugo site whose note pages are h-entries with their syndication links. */
export const HUGO_SITE: Record<string, string> = {
  "hugo.toml": `baseURL = "http://127.0.0.1/"
title = "A site"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
[markup.goldmark.renderer]
unsafe = true
`,
  "layouts/_default/single.html": `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><article class="h-entry">
{{ with .Title }}<h1 class="p-name">{{ . }}</h1>{{ end }}
<div class="e-content">{{ .Content }}</div>
<a class="u-url" href="{{ .Permalink }}"><time class="dt-published" datetime="{{ .Date.Format "2006-01-02T15:04:05Z07:00" }}">{{ .Date.Format "2 January 2006" }}</time></a>
{{ range .Params.tags }}<span class="p-category">{{ . }}</span>{{ end }}
{{ range .Params.syndication }}<a class="u-syndication" rel="syndication" href="{{ . }}">{{ . }}</a>{{ end }}
</article></body></html>
`,
  "layouts/_default/list.html": `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Date }}</a></li>{{ end }}</ul></body></html>
`,
};

export interface GitRemote {
  /** The bare repository's path: the store's url. */
  url: string;
  /** The subjects of the commits on main, newest first. */
  log(): string[];
  /** A file on main, or undefined. */
  file(path: string): string | undefined;
  /** Commits and pushes a file from another clone, as another writer would. */
  pushFromElsewhere(path: string, content: string): void;
  /** Commits and pushes a symbolic link at `path` to `target` (as written, absolute or relative). */
  pushSymlinkFromElsewhere(path: string, target: string): void;
  /** A fresh clone of main (the site a deploy builds). */
  clone(): string;
  close(): void;
}

export function startGitRemote(files: Record<string, string> = HUGO_SITE): GitRemote {
  const folder = mkdtempSync(join(tmpdir(), "possekit-remote-"));
  const url = join(folder, "site.git");
  git(folder, "init", "--quiet", "--bare", "--initial-branch=main", url);
  const seed = join(folder, "seed");
  git(folder, "clone", "--quiet", url, seed);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(seed, path)), { recursive: true });
    writeFileSync(join(seed, path), content);
  }
  git(seed, "checkout", "--quiet", "-b", "main");
  git(seed, "add", "--all");
  git(seed, "commit", "--quiet", "-m", "The site");
  git(seed, "push", "--quiet", "origin", "main");
  let clones = 0;
  return {
    url,
    log: () => git(url, "log", "--format=%s", "main").trim().split("\n"),
    file(path) {
      try {
        return git(url, "show", `main:${path}`);
      } catch {
        return undefined;
      }
    },
    pushFromElsewhere(path, content) {
      git(seed, "pull", "--quiet", "--rebase", "origin", "main");
      mkdirSync(dirname(join(seed, path)), { recursive: true });
      writeFileSync(join(seed, path), content);
      git(seed, "add", "--all");
      git(seed, "commit", "--quiet", "-m", `Elsewhere: ${path}`);
      git(seed, "push", "--quiet", "origin", "main");
    },
    pushSymlinkFromElsewhere(path, target) {
      git(seed, "pull", "--quiet", "--rebase", "origin", "main");
      mkdirSync(dirname(join(seed, path)), { recursive: true });
      symlinkSync(target, join(seed, path));
      git(seed, "add", "--all");
      git(seed, "commit", "--quiet", "-m", `Elsewhere: ${path} -> ${target}`);
      git(seed, "push", "--quiet", "origin", "main");
    },
    clone() {
      const target = join(folder, `clone-${++clones}`);
      git(folder, "clone", "--quiet", "--branch", "main", url, target);
      return target;
    },
    close: () => rmSync(folder, { recursive: true, force: true }),
  };
}
