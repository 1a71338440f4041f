// The git store's writer: a working copy in the data folder; each change is written, committed and
// pushed. A push the remote refuses because it moved on is fetched, rebased and pushed again, never
// forced. A change that cannot be pushed is undone (the Micropub request fails and can be sent
// again); a commit left by a process that died before its push is pushed at the next start.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../logger.ts";
import { StoreError } from "./content-store.ts";
import type { FileChange, FileWriter } from "./file-writer.ts";
import { applyFiles } from "./folder-writer.ts";
import { GitError, type GitIdentity, type GitRunner, gitRunner } from "./git.ts";

export interface GitWriterOptions {
  url: string;
  branch: string;
  /** The site's subfolder in the repository ("" for its root). */
  folder: string;
  /** The working copy. */
  workdir: string;
  author: GitIdentity;
  token?: string;
  logger: Logger;
}

/** How many times a push refused because the remote moved on is rebased and tried again. */
const PUSH_ATTEMPTS = 4;

const isRejected = (error: unknown) =>
  error instanceof GitError &&
  /\[rejected\]|\(fetch first\)|non-fast-forward|failed to push some refs/.test(error.result.stderr);

export class GitWriter implements FileWriter {
  private readonly git: GitRunner;
  /** Changes one after the other: a commit is never made while another is being pushed. */
  private queue: Promise<unknown> = Promise.resolve();
  private ready = false;
  private lastError: string | undefined;
  private unpushed = false;
  /** Commits pushed by this process (the bench and the status page read it). */
  pushes = 0;

  constructor(private readonly options: GitWriterOptions) {
    this.git = gitRunner(options.workdir, options.author, options.token);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => {});
    return next;
  }

  /** Clones on first use; at every start, pushes what a stopped process committed and did not push. */
  open(): Promise<void> {
    return this.serial(async () => {
      await this.prepare();
      await this.pushPending();
    });
  }

  private async prepare(): Promise<void> {
    if (this.ready) return;
    const { workdir, url, branch } = this.options;
    await mkdir(workdir, { recursive: true, mode: 0o700 });
    if (!existsSync(join(workdir, ".git"))) {
      await this.git(["init", "--quiet", `--initial-branch=${branch}`]);
      await this.git(["remote", "add", "origin", "--", url]);
      const fetched = await this.git(["fetch", "--quiet", "origin", branch], { allowFailure: true });
      if (fetched.code === 0) await this.git(["reset", "--quiet", "--hard", `origin/${branch}`]);
      else if (!/couldn't find remote ref/i.test(fetched.stderr))
        throw new StoreError(`Could not fetch ${url}: ${new GitError(["fetch"], fetched).message}`);
    } else {
      await this.git(["remote", "set-url", "origin", "--", url]);
      // A change a dead process had written but not committed is not a change anybody asked for.
      if (await this.hasCommits()) await this.git(["reset", "--quiet", "--hard", "HEAD"]);
      await this.git(["clean", "--quiet", "-fd"]);
    }
    this.ready = true;
  }

  private async hasCommits(): Promise<boolean> {
    return (await this.git(["rev-parse", "--verify", "--quiet", "HEAD"], { allowFailure: true })).code === 0;
  }

  /** Pushes the branch; a refusal because the remote moved on is fetched, rebased and pushed again. */
  private async push(): Promise<void> {
    const { branch } = this.options;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.git(["push", "--quiet", "--porcelain", "origin", `HEAD:refs/heads/${branch}`]);
        this.pushes++;
        this.unpushed = false;
        return;
      } catch (error) {
        if (!isRejected(error) || attempt >= PUSH_ATTEMPTS) throw error;
        this.options.logger.info("The site's repository moved on; rebasing before pushing again", { branch });
        await this.git(["fetch", "--quiet", "origin", branch]);
        const rebased = await this.git(["rebase", "--quiet", `origin/${branch}`], { allowFailure: true });
        if (rebased.code !== 0) {
          await this.git(["rebase", "--abort"], { allowFailure: true });
          throw new StoreError(
            `Could not rebase on ${branch}: the remote changed the same file (${new GitError(["rebase"], rebased).message})`,
            "resolve the conflict in the repository; possekit never forces a push",
          );
        }
      }
    }
  }

  private async pushPending(): Promise<void> {
    if (!(await this.hasCommits())) return;
    const ahead = await this.git(["rev-list", "--count", `origin/${this.options.branch}..HEAD`], {
      allowFailure: true,
    });
    // No origin/<branch> yet (an empty remote): everything is ahead.
    if (ahead.code === 0 && ahead.stdout.trim() === "0") return;
    this.unpushed = true;
    try {
      await this.push();
      this.options.logger.info("Pushed the commits a stopped process had left", {
        branch: this.options.branch,
      });
      this.lastError = undefined;
    } catch (error) {
      this.lastError = (error as Error).message;
      throw error instanceof StoreError
        ? error
        : new StoreError(`Could not push: ${(error as Error).message}`);
    }
  }

  apply(changes: readonly FileChange[], message: string): Promise<void> {
    return this.serial(async () => {
      await this.prepare();
      const folder = this.options.folder;
      const inRepository = changes.map((change) => ({
        ...change,
        path: folder ? `${folder}/${change.path}` : change.path,
      }));
      // Three git processes a change (add, commit, push): the push is what takes the time.
      try {
        await applyFiles(this.options.workdir, inRepository);
        await this.git(["add", "--all", "--", ...inRepository.map((change) => change.path)]);
        const committed = await this.git(["commit", "--quiet", "--no-verify", "-m", message], {
          allowFailure: true,
        });
        if (committed.code !== 0) {
          // The files were already as written: nothing to commit, nothing to push.
          if (/nothing to commit|nothing added to commit|no changes added/.test(committed.stdout)) return;
          throw new GitError(["commit"], committed);
        }
        this.unpushed = true;
        await this.push();
        this.lastError = undefined;
      } catch (error) {
        await this.undo();
        this.lastError = (error as Error).message;
        if (error instanceof StoreError) throw error;
        throw new StoreError(`The site's repository refused the change: ${(error as Error).message}`);
      }
    });
  }

  /**
   * Puts the working copy back where the remote is (as last fetched or pushed): every change before
   * this one was pushed, so that is where it stood, the remote's newer commits included.
   */
  private async undo(): Promise<void> {
    const remote = `refs/remotes/origin/${this.options.branch}`;
    try {
      const known = await this.git(["rev-parse", "--verify", "--quiet", remote], { allowFailure: true });
      if (known.code === 0) await this.git(["reset", "--quiet", "--hard", remote]);
      else {
        // An empty remote: no commit of ours is kept either.
        await this.git(["update-ref", "-d", "HEAD"], { allowFailure: true });
        await this.git(["rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "."]);
      }
      await this.git(["clean", "--quiet", "-fd"]);
      this.unpushed = false;
    } catch (error) {
      this.options.logger.error("Could not undo a change the site's repository refused", {
        error: (error as Error).message,
      });
    }
  }

  describe(): Record<string, unknown> {
    return {
      branch: this.options.branch,
      unpushed: this.unpushed,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }
}
