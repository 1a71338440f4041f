// Decision 0042: this possekit (a child process, as a user runs it) syndicates a post that lives
// on another possekit's Micropub endpoint, and dies with SIGKILL while the write-back of the copy's
// link hangs at the remote: the copy exists, the remote never heard of it. Restarted on the same
// embedded database, with no request at all, it writes the link back there, and never makes a
// second copy.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ENDPOINT_PACKAGE, MASTODON_PACKAGE } from "../scale/cluster.ts";
import { type CrashWorld, startCrashWorld } from "./write-back-crash.ts";

describe("SIGKILL between the copy and its write-back to the remote Micropub server", () => {
  let world: CrashWorld | undefined;
  before(async () => {
    world = await startCrashWorld();
  });
  after(async () => {
    await world?.close();
  });

  it("the copy is made once, and the link reaches the remote after the restart", async () => {
    const { sandbox, remote } = world as CrashWorld;
    const config = {
      plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
      [ENDPOINT_PACKAGE]: {
        schedule: { enabled: true, whenLive: false, maxSleepMs: 500 },
        sources: [{ type: "micropub", name: "blog", endpoint: remote.endpoint, tokenEnv: "BLOG_TOKEN" }],
      },
      [MASTODON_PACKAGE]: { url: sandbox.mastodon.url, user: sandbox.mastodon.user },
    };
    const env = { MASTODON_ACCESS_TOKEN: sandbox.mastodon.accessToken, BLOG_TOKEN: remote.token };
    const url = await remote.create("Grebes diving", [sandbox.uid]);
    await (world as CrashWorld).killMidWriteBackAndRestart(config, env, url);
    const properties = await remote.properties(url);
    assert.deepEqual(properties.syndication, [sandbox.mastodon.statuses[0]?.url]);
    assert.equal(properties["mp-syndicate-to"], undefined);
    assert.equal(sandbox.mastodon.statuses.length, 1, "never a second copy");
    assert.equal(
      sandbox.mastodon.requests.filter(
        (request) => request.method === "POST" && request.path === "/api/v1/statuses",
      ).length,
      1,
      "Mastodon was asked once",
    );
  });
});
