// The crash both post sources that write links back must survive (a remote Micropub server's posts,
// a feed's site with a Micropub endpoint): possekit, a child process as a user runs it, dies with
// SIGKILL while the write-back of a copy's link hangs at the remote, then starts again on the same
// embedded database with the remote answering. The caller checks what the remote holds afterwards.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { type Sandbox, startSandbox, until } from "../scale/cluster.ts";
import { type Remote, startRemote } from "./remote-micropub.ts";

export interface CrashWorld {
  /** The sandbox Mastodon the copies go to. */
  sandbox: Sandbox;
  /** The possekit whose Micropub endpoint (behind its gate) takes the links. */
  remote: Remote;
  /** The embedded database's folder, kept across the kill. */
  dataDir: string;
  /**
   * Starts possekit with `config` (its `application.dataDir` filled in), waits until the write-back
   * of `url`'s link hangs at the remote, kills it, starts it again with the remote answering, and
   * resolves once its update of `url` has reached the remote.
   */
  killMidWriteBackAndRestart(
    config: Record<string, unknown>,
    env: Record<string, string>,
    url: string,
  ): Promise<void>;
  close(): Promise<void>;
}

export async function startCrashWorld(): Promise<CrashWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), "possekit-write-back-crash-"));
  const sandbox = await startSandbox();
  const remote = await startRemote();
  const servers: ChildServer[] = [];
  const start = async (config: Record<string, unknown>, env: Record<string, string>) => {
    const application = { ...(config.application as object | undefined), dataDir };
    const server = await startChildServer({ config: { ...config, application }, env });
    servers.push(server);
    return server;
  };
  const waitFor = (what: string, server: ChildServer, condition: () => boolean) =>
    until(what, condition).catch((error: Error) => {
      throw new Error(`${error.message}\nThe server wrote:\n${server.output()}`);
    });
  return {
    sandbox,
    remote,
    dataDir,
    async killMidWriteBackAndRestart(config, env, url) {
      remote.gate.mode = "hang-updates";
      const doomed = await start(config, env);
      await waitFor(
        "the copy is made and its write-back hangs at the remote",
        doomed,
        () => remote.gate.held >= 1,
      );
      assert.equal(sandbox.mastodon.statuses.length, 1);
      assert.equal((await doomed.kill("SIGKILL")).signal, "SIGKILL");
      assert.equal((await remote.properties(url)).syndication, undefined, "the remote never got the link");

      remote.gate.mode = "pass";
      const restarted = await start(config, env);
      await waitFor("the link is written back after the restart", restarted, () =>
        remote.gate.passed.includes(`POST update ${url}`),
      );
    },
    async close() {
      await Promise.all(servers.map((server) => server.stop()));
      await sandbox.mastodon.close();
      await remote.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
