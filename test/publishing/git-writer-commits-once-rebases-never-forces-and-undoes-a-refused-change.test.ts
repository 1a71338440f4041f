// The git store's writer against bare repositories on disk, the system git doing the work: a change
// is one commit, pushed, in the site's subfolder; nothing changed is no commit; a remote that moved on
// is rebased on, never forced; a change that cannot be pushed (a conflict, a remote that keeps
// refusing, a remote gone) fails with the store's error and leaves nothing behind, so the same change
// sent again is written once; at start, a commit a stopped process left is pushed and a change it
// left uncommitted is dropped. Through Micropub and the whole host:
// test/publishing/git-store-*.test.ts.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Logger } from "../../src/server/logger.ts";
import { StoreError } from "../../src/server/stores/content-store.ts";
import { GitWriter } from "../../src/server/stores/git-writer.ts";
import { type GitRemote, git, startGitRemote } from "./git-remote.ts";

const scratch = mkdtempSync(join(tmpdir(), "possekit-git-writer-"));
const remotes: GitRemote[] = [];
after(() => {
  for (const remote of remotes) remote.close();
  rmSync(scratch, { recursive: true, force: true });
});

const AUTHOR = { name: "Site Bot", email: "bot@example.org" };
let workdirs = 0;

interface Logged {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

function writerFor(url: string, options: { folder?: string; workdir?: string } = {}) {
  const logged: Logged[] = [];
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    logged.push({ level, message, ...(fields ? { fields } : {}) });
  const logger: Logger = {
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
  const workdir = options.workdir ?? join(scratch, `work-${++workdirs}`);
  const writer = new GitWriter({
    url,
    branch: "main",
    folder: options.folder ?? "",
    workdir,
    author: AUTHOR,
    logger,
  });
  return { writer, logged, workdir };
}

function remoteWith(files: Record<string, string> = { "content/about.md": "About\n" }): GitRemote {
  const remote = startGitRemote(files);
  remotes.push(remote);
  return remote;
}

/** A bare repository with no commit and no branch yet. */
function emptyRemote(): string {
  const url = join(mkdtempSync(join(scratch, "empty-")), "site.git");
  git(scratch, "init", "--quiet", "--bare", "--initial-branch=main", url);
  return url;
}

/** A hook that refuses every push, counting them in a file. */
function refuseEveryPush(url: string): () => number {
  const count = join(url, "pushes-refused");
  const hook = join(url, "hooks", "pre-receive");
  writeFileSync(hook, `#!/bin/sh\necho x >> "${count}"\necho "refused by the test" >&2\nexit 1\n`);
  chmodSync(hook, 0o755);
  return () => (existsSync(count) ? readFileSync(count, "utf8").split("\n").filter(Boolean).length : 0);
}

const storeError = (message: RegExp) => (error: unknown) =>
  error instanceof StoreError && message.test(error.message);

describe("the git writer", () => {
  it("commits a change with its message and author, in the site's subfolder, and pushes it", async () => {
    const remote = remoteWith({ "site/content/about.md": "About\n" });
    const { writer } = writerFor(remote.url, { folder: "site" });
    await writer.open();
    await writer.apply(
      [
        { path: "content/notes/a.md", content: "A\n" },
        { path: "content/about.md", remove: true },
      ],
      "Create https://me.example/notes/a/",
    );
    assert.deepEqual(remote.log(), ["Create https://me.example/notes/a/", "The site"]);
    assert.equal(remote.file("site/content/notes/a.md"), "A\n");
    assert.equal(remote.file("site/content/about.md"), undefined, "the removal is committed");
    assert.equal(remote.file("content/notes/a.md"), undefined, "nothing outside the subfolder");
    assert.equal(
      git(remote.url, "log", "-1", "--format=%an <%ae>|%cn <%ce>", "main").trim(),
      "Site Bot <bot@example.org>|Site Bot <bot@example.org>",
    );
    assert.equal(writer.pushes, 1);
    assert.deepEqual(writer.describe(), { branch: "main", unpushed: false });
  });

  it("makes no commit and no push when the files are already as written", async () => {
    const remote = remoteWith();
    const { writer } = writerFor(remote.url);
    await writer.apply([{ path: "content/about.md", content: "About\n" }], "Update about");
    assert.deepEqual(remote.log(), ["The site"]);
    assert.equal(writer.pushes, 0);
  });

  it("rebases on a remote that moved on and pushes again, keeping the other writer's commit", async () => {
    const remote = remoteWith();
    const { writer, logged } = writerFor(remote.url);
    await writer.apply([{ path: "content/a.md", content: "A\n" }], "Create a");
    remote.pushFromElsewhere("content/elsewhere.md", "Elsewhere\n");
    await writer.apply([{ path: "content/b.md", content: "B\n" }], "Create b");
    assert.deepEqual(remote.log(), ["Create b", "Elsewhere: content/elsewhere.md", "Create a", "The site"]);
    assert.equal(remote.file("content/elsewhere.md"), "Elsewhere\n");
    assert.equal(writer.pushes, 2);
    assert.deepEqual(
      logged.filter((line) => line.level === "info").map((line) => [line.message, line.fields]),
      [["The site's repository moved on; rebasing before pushing again", { branch: "main" }]],
    );
  });

  it("fails a change that conflicts with the remote, never forcing, and keeps nothing of it", async () => {
    const remote = remoteWith();
    const { writer, workdir } = writerFor(remote.url);
    await writer.open();
    remote.pushFromElsewhere("content/about.md", "About, edited elsewhere\n");
    const failure = await writer
      .apply([{ path: "content/about.md", content: "About, edited here\n" }], "Update about")
      .then(
        () => assert.fail("the change was reported written"),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof StoreError);
    assert.match(
      failure.message,
      /^Could not rebase on main: the remote changed the same file \(git rebase failed: /,
    );
    assert.equal(failure.hint, "resolve the conflict in the repository; possekit never forces a push");
    assert.equal(remote.file("content/about.md"), "About, edited elsewhere\n", "the remote's change stays");
    assert.equal(readFileSync(join(workdir, "content/about.md"), "utf8"), "About, edited elsewhere\n");
    assert.ok(!existsSync(join(workdir, ".git", "rebase-merge")), "no rebase left half done");
    assert.deepEqual(writer.describe(), { branch: "main", unpushed: false, lastError: failure.message });
    // The next change starts from the remote, and a success forgets the failure.
    await writer.apply([{ path: "content/c.md", content: "C\n" }], "Create c");
    assert.deepEqual(remote.log().slice(0, 2), ["Create c", "Elsewhere: content/about.md"]);
    assert.deepEqual(writer.describe(), { branch: "main", unpushed: false });
  });

  it("tries a refused push 4 times in all, then fails the change and undoes its commit", async () => {
    const remote = remoteWith();
    const { writer, workdir } = writerFor(remote.url);
    await writer.open();
    const refusals = refuseEveryPush(remote.url);
    await assert.rejects(
      writer.apply([{ path: "content/a.md", content: "A\n" }], "Create a"),
      storeError(/^The site's repository refused the change: git push failed: /),
    );
    assert.equal(refusals(), 4);
    assert.deepEqual(remote.log(), ["The site"]);
    assert.equal(git(workdir, "log", "--format=%s").trim(), "The site", "the commit is undone");
    assert.ok(!existsSync(join(workdir, "content/a.md")), "and its file");
    assert.equal(writer.pushes, 0);
  });

  it("writes a change sent again after a failed push once, and loses nothing", async () => {
    const remote = remoteWith();
    const { writer } = writerFor(remote.url);
    await writer.apply([{ path: "content/a.md", content: "A\n" }], "Create a");
    const moved = `${remote.url}-moved`;
    renameSync(remote.url, moved);
    await assert.rejects(
      writer.apply([{ path: "content/b.md", content: "B\n" }], "Create b"),
      storeError(/^The site's repository refused the change: git push failed: /),
    );
    assert.match(
      String(writer.describe().lastError),
      /^git push failed: .*does not appear to be a git repository/,
    );
    renameSync(moved, remote.url);
    await writer.apply([{ path: "content/b.md", content: "B\n" }], "Create b");
    assert.deepEqual(remote.log(), ["Create b", "Create a", "The site"]);
    assert.equal(remote.file("content/a.md"), "A\n");
    assert.equal(remote.file("content/b.md"), "B\n");
  });

  it("refuses a path out of the repository, writing nothing there or outside", async () => {
    const remote = remoteWith();
    const { writer, workdir } = writerFor(remote.url);
    await assert.rejects(
      writer.apply([{ path: "../escaped.md", content: "out\n" }], "Create out"),
      storeError(/^The path "..\/escaped.md" is outside the store's folder$/),
    );
    assert.ok(!existsSync(join(workdir, "..", "escaped.md")));
    assert.deepEqual(remote.log(), ["The site"]);
  });

  it("starts on an empty remote, makes its branch with the first change, and undoes a refused first change whole", async () => {
    const url = emptyRemote();
    const { writer, workdir } = writerFor(url);
    await writer.open();
    const refusals = refuseEveryPush(url);
    await assert.rejects(writer.apply([{ path: "a.md", content: "A\n" }], "Create a"), StoreError);
    assert.ok(refusals() > 0, "the push was tried");
    assert.throws(
      () => git(workdir, "rev-parse", "--verify", "--quiet", "HEAD"),
      "no commit of ours is kept",
    );
    assert.equal(git(workdir, "ls-files").trim(), "", "nor anything staged");
    assert.ok(!existsSync(join(workdir, "a.md")));
    rmSync(join(url, "hooks", "pre-receive"));
    await writer.apply([{ path: "b.md", content: "B\n" }], "Create b");
    assert.equal(git(url, "log", "--format=%s", "main").trim(), "Create b");
    assert.equal(git(url, "show", "main:b.md"), "B\n");
  });

  it("refuses to start when the remote cannot be read, naming it", async () => {
    const missing = join(scratch, "no-such-remote.git");
    const { writer } = writerFor(missing);
    await assert.rejects(
      writer.open(),
      storeError(new RegExp(`^Could not fetch ${missing}: git fetch failed: `)),
    );
  });

  it("at start, pushes the commits a stopped process left and drops what it left uncommitted", async () => {
    const remote = remoteWith();
    const first = writerFor(remote.url);
    await first.writer.open();
    // A process that committed and died before its push, with a file written and not committed.
    writeFileSync(join(first.workdir, "content/left.md"), "Left\n");
    git(first.workdir, "add", "content/left.md");
    git(first.workdir, "commit", "--quiet", "-m", "Create left");
    writeFileSync(join(first.workdir, "content/about.md"), "Half written\n");
    writeFileSync(join(first.workdir, "content/stray.md"), "Stray\n");
    const next = writerFor(remote.url, { workdir: first.workdir });
    await next.writer.open();
    assert.deepEqual(remote.log(), ["Create left", "The site"]);
    assert.equal(remote.file("content/about.md"), "About\n");
    assert.equal(readFileSync(join(first.workdir, "content/about.md"), "utf8"), "About\n");
    assert.ok(!existsSync(join(first.workdir, "content/stray.md")));
    assert.equal(next.writer.pushes, 1);
    assert.deepEqual(
      next.logged.map((line) => [line.level, line.message, line.fields]),
      [["info", "Pushed the commits a stopped process had left", { branch: "main" }]],
    );
    // Nothing left to push: the next start pushes nothing.
    const third = writerFor(remote.url, { workdir: first.workdir });
    await third.writer.open();
    assert.equal(third.writer.pushes, 0);
    assert.deepEqual(third.logged, []);
  });

  it("at start, fails when what a stopped process left cannot be pushed, and says so on the status page", async () => {
    const remote = remoteWith();
    const first = writerFor(remote.url);
    await first.writer.open();
    writeFileSync(join(first.workdir, "content/left.md"), "Left\n");
    git(first.workdir, "add", "content/left.md");
    git(first.workdir, "commit", "--quiet", "-m", "Create left");
    refuseEveryPush(remote.url);
    const next = writerFor(remote.url, { workdir: first.workdir });
    const failure = await next.writer.open().then(
      () => assert.fail("the start was reported done"),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof StoreError);
    assert.match(failure.message, /^Could not push: git push failed: /);
    assert.deepEqual(next.writer.describe(), {
      branch: "main",
      unpushed: true,
      lastError: failure.message.replace(/^Could not push: /, ""),
    });
    assert.deepEqual(remote.log(), ["The site"]);
  });

  it("follows the remote's new address at start", async () => {
    const remote = remoteWith();
    const first = writerFor(remote.url);
    await first.writer.open();
    const other = remoteWith({ "content/other.md": "Other\n" });
    const next = writerFor(other.url, { workdir: first.workdir });
    await next.writer.open();
    assert.equal(git(first.workdir, "remote", "get-url", "origin").trim(), other.url);
  });
});
