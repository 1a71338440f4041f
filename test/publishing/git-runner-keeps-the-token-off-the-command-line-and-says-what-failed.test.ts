// The system git as the git store runs it (src/server/stores/git.ts), asked what it was given: the
// author and committer named, a token only as an extra HTTP header in the environment (never in the
// arguments), no signing, no prompt, paths unquoted, big answers read whole; a failure is a GitError
// with git's first line, or the exit code, unless the caller takes failures as answers.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { GitError, gitRunner } from "../../src/server/stores/git.ts";

const folder = mkdtempSync(join(tmpdir(), "possekit-git-runner-"));
after(() => rmSync(folder, { recursive: true, force: true }));
const IDENTITY = { name: "Site Bot", email: "bot@example.org" };

describe("the git runner", () => {
  const run = gitRunner(folder, IDENTITY);

  it("runs in its folder as the store's author and committer, unsigned, unprompted, paths unquoted, in the C locale", async () => {
    await run(["init", "--quiet"]);
    assert.equal((await run(["rev-parse", "--show-toplevel"])).stdout.trim(), folder);
    assert.match(
      (await run(["var", "GIT_AUTHOR_IDENT"])).stdout,
      /^Site Bot <bot@example\.org> \d+ [+-]\d{4}\n$/,
    );
    assert.match(
      (await run(["var", "GIT_COMMITTER_IDENT"])).stdout,
      /^Site Bot <bot@example\.org> \d+ [+-]\d{4}\n$/,
    );
    assert.equal((await run(["config", "--get", "commit.gpgsign"])).stdout, "false\n");
    assert.equal((await run(["config", "--get", "core.quotepath"])).stdout, "off\n");
    const environment = (await run(["var", "-l"])).stdout;
    assert.match(environment, /^GIT_AUTHOR_IDENT=Site Bot/m);
    // The prompt and the locale are read by git from the environment, not from config.
    const printed = await gitRunner(folder, IDENTITY)(["-c", "alias.env=!env", "env"]);
    assert.match(printed.stdout, /^GIT_TERMINAL_PROMPT=0$/m);
    assert.match(printed.stdout, /^LC_ALL=C$/m);
    assert.match(printed.stdout, /^GIT_COMMITTER_NAME=Site Bot$/m);
    assert.match(printed.stdout, /^GIT_COMMITTER_EMAIL=bot@example\.org$/m);
    assert.doesNotMatch(printed.stdout, /http\.extraHeader|GIT_CONFIG_COUNT/i, "no token, no header");
    writeFileSync(join(folder, "café.md"), "x\n");
    assert.equal((await run(["ls-files", "--others"])).stdout, "café.md\n");
  });

  it("hands a token to git as a Basic authorization header in its environment only", async () => {
    const withToken = gitRunner(folder, IDENTITY, "s3cret-token");
    const header = await withToken(["config", "--get", "http.extraHeader"]);
    const basic = Buffer.from("x-access-token:s3cret-token").toString("base64");
    assert.equal(header.stdout, `Authorization: Basic ${basic}\n`);
    const printed = await withToken(["-c", "alias.env=!env", "env"]);
    assert.match(printed.stdout, /^GIT_CONFIG_COUNT=1$/m);
    assert.match(printed.stdout, /^GIT_CONFIG_KEY_0=http\.extraHeader$/m);
    const failed = await withToken(["no-such-command"], { allowFailure: true });
    assert.ok(!JSON.stringify(failed).includes("s3cret-token"), "the token is not in what git says");
  });

  it("reads an answer of more than a megabyte whole", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    writeFileSync(join(folder, "big.txt"), big);
    const blob = (await run(["hash-object", "-w", "big.txt"])).stdout.trim();
    assert.equal((await run(["cat-file", "-p", blob])).stdout.length, big.length);
  });

  it("fails with git's first line said, its fatal: or error: dropped, and keeps what git answered", async () => {
    const failure = await run(["rev-parse", "--verify", "no-such-ref"]).then(
      () => assert.fail("a missing ref was found"),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof GitError);
    assert.equal(failure.name, "GitError");
    assert.equal(failure.message, "git rev-parse failed: Needed a single revision");
    assert.deepEqual(failure.args, ["rev-parse", "--verify", "no-such-ref"]);
    assert.equal(failure.result.code, 128);
    assert.equal(failure.result.stdout, "");
    const error = await run(["checkout", "--quiet", "no-such-branch"]).catch((caught: GitError) => caught);
    assert.match(
      String((error as GitError).message),
      /^git checkout failed: pathspec 'no-such-branch' did not match/,
    );
  });

  it("names the exit code when git says nothing, and answers a failure when told to", async () => {
    const silent = await run(["rev-parse", "--verify", "--quiet", "no-such-ref"], { allowFailure: true });
    assert.deepEqual(silent, { code: 1, stdout: "", stderr: "" });
    const failure = await run(["rev-parse", "--verify", "--quiet", "no-such-ref"]).catch(
      (caught: unknown) => caught,
    );
    assert.ok(failure instanceof GitError);
    assert.equal(failure.message, "git rev-parse failed: exit code 1");
    const blank = new GitError(["push"], {
      code: 1,
      stdout: "",
      stderr: "\n  \nerror: refused\nhint: try again\n",
    });
    assert.equal(blank.message, "git push failed: refused", "blank lines are skipped, advice left out");
    const indented = new GitError(["push"], { code: 1, stdout: "", stderr: "  error: refused\n" });
    assert.equal(indented.message, "git push failed: refused");
    const remote = new GitError(["push"], {
      code: 1,
      stdout: "",
      stderr: "remote: error: refused by a hook\n",
    });
    assert.equal(
      remote.message,
      "git push failed: remote: error: refused by a hook",
      "only a leading fatal: or error: goes",
    );
  });

  it("takes git that cannot start for a failure with exit code 1", async () => {
    const nowhere = gitRunner(join(folder, "no-such-folder"), IDENTITY);
    const answer = await nowhere(["status"], { allowFailure: true });
    assert.equal(answer.code, 1);
    await assert.rejects(
      nowhere(["status"]),
      (error: unknown) => error instanceof GitError && error.message === "git status failed: exit code 1",
    );
  });

  it("answers success with code 0 and what git printed", async () => {
    assert.deepEqual(await run(["rev-parse", "--is-inside-work-tree"]), {
      code: 0,
      stdout: "true\n",
      stderr: "",
    });
  });
});
