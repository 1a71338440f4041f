// Issue 30, item 3: this possekit (a child process, as a user runs it) syndicates a post that lives
// on another possekit's Micropub endpoint, and dies with SIGKILL while the write-back of the copy's
// link hangs at the remote: the copy exists, the remote never heard of it. Restarted on the same
// embedded database, with no request at all, it writes the link back there, and never makes a
// second copy.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { ENDPOINT_PACKAGE, MASTODON_PACKAGE, type Sandbox, startSandbox, until } from "../scale/cluster.ts";
import { type Remote, startRemote } from "./remote-micropub.ts";

describe("SIGKILL between the copy and its write-back to the remote Micropub server", () => {
  let sandbox: Sandbox | undefined;
  let remote: Remote | undefined;
  const servers: ChildServer[] = [];
  let dataDir = "";

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "possekit-remote-crash-"));
    sandbox = await startSandbox();
    remote = await startRemote();
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await sandbox?.mastodon.close();
    await remote?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the copy is made once, and the link reaches the remote after the restart", async () => {
    const mastodon = sandbox as Sandbox;
    const there = remote as Remote;
    const config = {
      application: { dataDir },
      plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
      [ENDPOINT_PACKAGE]: {
        schedule: { enabled: true, whenLive: false, maxSleepMs: 500 },
        sources: [{ type: "micropub", name: "blog", endpoint: there.endpoint, tokenEnv: "BLOG_TOKEN" }],
      },
      [MASTODON_PACKAGE]: { url: mastodon.mastodon.url, user: mastodon.mastodon.user },
    };
    const env = { MASTODON_ACCESS_TOKEN: mastodon.mastodon.accessToken, BLOG_TOKEN: there.token };
    const url = await there.create("Grebes diving", [mastodon.uid]);
    there.gate.mode = "hang-updates";

    const doomed = await startChildServer({ config, env });
    servers.push(doomed);
    await until(
      "the copy is made and its write-back hangs at the remote",
      () => there.gate.held >= 1,
      60_000,
    );
    assert.equal(mastodon.mastodon.statuses.length, 1);
    assert.equal((await doomed.kill("SIGKILL")).signal, "SIGKILL");
    assert.equal((await there.properties(url)).syndication, undefined, "the remote never got the link");

    there.gate.mode = "pass";
    const restarted = await startChildServer({ config, env });
    servers.push(restarted);
    await until(
      "the link is written back after the restart",
      () => there.gate.passed.includes(`POST update ${url}`),
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nThe restarted server wrote:\n${restarted.output()}`);
    });
    const properties = await there.properties(url);
    assert.deepEqual(properties.syndication, [mastodon.mastodon.statuses[0]?.url]);
    assert.equal(properties["mp-syndicate-to"], undefined);
    assert.equal(mastodon.mastodon.statuses.length, 1, "never a second copy");
    assert.equal(
      mastodon.mastodon.requests.filter(
        (request) => request.method === "POST" && request.path === "/api/v1/statuses",
      ).length,
      1,
      "Mastodon was asked once",
    );
  });
});
