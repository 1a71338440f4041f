// The instance's limits are kept for an hour (an instance changes them rarely), then read again.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { InstanceLimitsCache } from "../../src/syndicators/mastodon/mastodon-instance.ts";
import { HANG_MS } from "./fixtures.ts";

const minute = 60 * 1000;

describe("Mastodon: the instance's limits are read once an hour", () => {
  const sandboxes: MastodonSandbox[] = [];
  after(() => Promise.all(sandboxes.map((sandbox) => sandbox.close())));
  const reads = (sandbox: MastodonSandbox) =>
    sandbox.requests.filter((request) => request.path.endsWith("/instance")).length;
  const target = () => ({ name: "Mastodon", signal: AbortSignal.timeout(HANG_MS) });

  it("keeps what the instance said for an hour, then asks again", async () => {
    const sandbox = await startMastodonSandbox({ accessToken: "token", characterLimit: 1000 });
    sandboxes.push(sandbox);
    let now = 1_000_000;
    const cache = new InstanceLimitsCache(sandbox.url, () => now);
    assert.equal((await cache.get(target())).maxCharacters, 1000);
    now += 59 * minute;
    await cache.get(target());
    assert.equal(reads(sandbox), 1, "within the hour: no second read");
    now += 2 * minute;
    await cache.get(target());
    assert.equal(reads(sandbox), 2, "after the hour: read again");
  });
});
