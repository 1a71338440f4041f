// Decision 0042: posts that live on another Micropub server (here another possekit, whose
// endpoint passes micropub.rocks) are syndicated by this one with nobody asking, and the copies'
// links are written back there as Indiekit's own syndicate endpoint does: `syndication` holds the
// copy, `mp-syndicate-to` no longer names the target done. A remote that is down when the copy is
// made gets the link at the next poll, never a second copy; a token the remote refuses shows as a
// configuration error on /health and on the page.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { closeAll, until } from "../endpoint/endpoint-server.ts";
import { healthOf as healthWithToken } from "../helpers/health.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import {
  type Local,
  polled,
  type Remote,
  SOURCE_NAME,
  startLocal,
  startRemote,
  startTarget,
  type Target,
} from "./remote-micropub.ts";

interface Health {
  "endpoint-syndicate"?: { sources?: Array<{ state: string; error?: string }> };
}
const healthOf = async (local: Local) => (await healthWithToken(local.server)) as Health;

describe("posts of a remote Micropub server", () => {
  let remote: Remote;
  let target: Target;
  let local: Local;
  before(async () => {
    target = await startTarget();
    remote = await startRemote();
  });
  after(async () => {
    await local?.close();
    await closeAll(remote, target);
  });

  const statusesOf = (content: string) =>
    target.sandbox.statuses.filter((status) => status.text.includes(content));
  const updatesOf = (url: string) => remote.gate.passed.filter((request) => request === `POST update ${url}`);

  it("a post there naming the target is sent once, with no request to this possekit, and its link written back there", async () => {
    const waiting = await remote.create("Herons at dawn", [target.uid]);
    const mine = await remote.create("Not for Mastodon", []);
    const draft = await createPostAt(remote.server.url, remote.token, {
      content: "A draft for Mastodon",
      targets: [target.uid],
      fields: { "post-status": "draft" },
    });
    local = await startLocal(remote, target);

    await until("the link is written back to the remote", () => updatesOf(waiting).length === 1);
    const there = await remote.properties(waiting);
    const copies = statusesOf("Herons at dawn");
    assert.equal(copies.length, 1);
    assert.deepEqual(there.syndication, [copies[0]?.url]);
    assert.equal(there["mp-syndicate-to"], undefined, "the target done is no longer asked for there");
    assert.equal(statusesOf("Not for Mastodon").length, 0);
    assert.equal(updatesOf(mine).length, 0, "a post with nothing to write back gets no update");
    assert.equal(statusesOf("A draft for Mastodon").length, 0, "a draft there is never sent");
    assert.equal(updatesOf(draft).length, 0);

    const row = await local.server.host.knownPosts?.findByUrl(waiting);
    assert.equal(row?.origin, `micropub:${SOURCE_NAME}`);
    assert.deepEqual(row?.properties.syndication, [copies[0]?.url]);
  });

  it("the next poll sends nothing again and writes nothing again", async () => {
    const before = remote.gate.passed.length;
    const statuses = target.sandbox.statuses.length;
    local.nextPoll();
    await polled(local);
    assert.ok(remote.gate.passed.slice(before).includes("GET q=source"), "the remote was polled");
    assert.equal(target.sandbox.statuses.length, statuses);
    assert.deepEqual(
      remote.gate.passed.slice(before).filter((request) => request.startsWith("POST")),
      [],
    );
  });

  it("a target added there later: sent at the next poll, and written back", async () => {
    const url = await remote.create("Avocets", []);
    local.nextPoll();
    await polled(local);
    const response = await fetch(`${remote.server.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${remote.token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "update", url, add: { "mp-syndicate-to": [target.uid] } }),
    });
    assert.equal(response.status, 204, await response.text());
    local.nextPoll();
    await until("the link is written back", () => updatesOf(url).length === 1);
    assert.equal(statusesOf("Avocets").length, 1);
    assert.deepEqual((await remote.properties(url)).syndication, [statusesOf("Avocets")[0]?.url]);
  });

  it("a poll before its interval is not made: waking the scheduler asks nothing of the remote", async () => {
    const before = remote.gate.passed.length;
    for (let i = 0; i < 5; i++) local.scheduler.nudge();
    const wakeUps = local.scheduler.state().wakeUps;
    await until("the scheduler woke", () => local.scheduler.state().wakeUps > wakeUps);
    assert.equal(remote.gate.passed.length, before);
  });

  it("the remote down when the copy is made: one copy, and the link written back at the next poll", async () => {
    const url = await remote.create("Kingfisher", [target.uid]);
    remote.gate.mode = "down-for-updates";
    local.nextPoll();
    await until("the post is on Mastodon", () => statusesOf("Kingfisher").length === 1);
    await until("the write-back was refused", () =>
      remote.gate.refused.some((request) => request.includes(url)),
    );
    assert.equal((await remote.properties(url)).syndication, undefined);
    const health = await healthOf(local);
    assert.equal(health["endpoint-syndicate"]?.sources?.[0]?.state, "unavailable", JSON.stringify(health));

    remote.gate.mode = "pass";
    local.nextPoll();
    await until("the link reaches the remote", () => updatesOf(url).length === 1);
    const there = await remote.properties(url);
    assert.deepEqual(there.syndication, [statusesOf("Kingfisher")[0]?.url]);
    assert.equal(there["mp-syndicate-to"], undefined);
    assert.equal(statusesOf("Kingfisher").length, 1, "never a second copy");
  });

  it("a token the remote refuses: a configuration error on /health and the page, naming the variable; nothing crashes", async () => {
    const variable = Object.keys(local.env)[0] as string;
    local.env[variable] = "a-token-the-remote-never-issued";
    local.nextPoll();
    await polled(local);
    const report = await local.source.report();
    assert.equal(report.state, "refused");
    const expected = `the token in ${variable} was refused by ${remote.endpoint}: `;
    assert.ok(report.error?.startsWith(expected), report.error ?? "");
    assert.ok(!report.error?.includes("a-token-the-remote-never-issued"));

    const health = await healthOf(local);
    assert.equal(health["endpoint-syndicate"]?.sources?.[0]?.state, "refused");
    assert.equal(health["endpoint-syndicate"]?.sources?.[0]?.error, report.error);
    const { cookie } = await local.server.signIn();
    const page = await (await fetch(`${local.server.url}/syndicate`, { headers: { cookie } })).text();
    assert.match(page, /class="flash flash-error source-refused"/);
    assert.ok(page.includes(variable), "the page names the variable to fix");

    local.env[variable] = remote.token;
    local.nextPoll();
    await polled(local);
    assert.equal((await local.source.report()).state, "ok", "the error is gone once the token is taken");
  });
});
