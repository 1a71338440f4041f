// The system git, always run with an argument array (never through a shell), with no prompt for a
// password, and with a token (for an https remote) passed in the environment as an extra header:
// neither the command line nor any log ever holds it.
import { execFile } from "node:child_process";

export type GitRunner = (args: readonly string[], options?: { allowFailure?: boolean }) => Promise<GitResult>;

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult,
  ) {
    // The first line git says is what went wrong; the rest is advice for a person at a terminal.
    const said =
      result.stderr
        .trim()
        .split("\n")
        .find((line) => line.trim() !== "") ?? `exit code ${result.code}`;
    super(`git ${args[0]} failed: ${said.replace(/^(fatal|error): /, "")}`);
    this.name = "GitError";
  }
}

export interface GitIdentity {
  name: string;
  email: string;
}

export function gitRunner(cwd: string, identity: GitIdentity, token?: string): GitRunner {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
    LC_ALL: "C",
  };
  if (token) {
    const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
    Object.assign(env, {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    });
  }
  return (args, options = {}) =>
    new Promise((resolveRun, reject) => {
      execFile(
        "git",
        ["-c", "commit.gpgsign=false", "-c", "core.quotepath=off", ...args],
        { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024, encoding: "utf8" },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          const result = { code, stdout, stderr };
          if (error && !options.allowFailure) reject(new GitError(args, result));
          else resolveRun(result);
        },
      );
    });
}
