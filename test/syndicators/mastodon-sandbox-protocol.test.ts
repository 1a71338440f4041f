// The sandbox answers as Mastodon does, so that what passes against it passes against an instance.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { until } from "../helpers/eventually.ts";

describe("The sandbox Mastodon speaks Mastodon's API", () => {
  let sandbox: MastodonSandbox;
  const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${sandbox.url}/api/v1/statuses`, {
      method: "POST",
      headers: { authorization: "Bearer token", ...headers },
      body: new URLSearchParams(body),
    });

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token", user: "alice", displayName: "Alice" });
  });
  beforeEach(() => sandbox.clearBehaviour());
  after(() => sandbox.close());

  it("401 with Mastodon's body for a missing or wrong token", async () => {
    for (const authorization of [undefined, "Bearer wrong"]) {
      const response = await fetch(`${sandbox.url}/api/v1/accounts/verify_credentials`, {
        headers: authorization ? { authorization } : {},
      });
      assert.equal(response.status, 401);
      assert.deepEqual(await response.json(), { error: "The access token is invalid" });
    }
    const me = await fetch(`${sandbox.url}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: "Bearer token" },
    });
    assert.equal(((await me.json()) as { username: string }).username, "alice");
  });

  it("422 with Mastodon's message over the limit; links count 23", async () => {
    const over = await post({ status: "x".repeat(501) });
    assert.equal(over.status, 422);
    assert.deepEqual(await over.json(), { error: "Validation failed: Text character limit of 500 exceeded" });
    const blank = await post({ status: " " });
    assert.deepEqual(await blank.json(), { error: "Validation failed: Text can't be blank" });
    const withLink = await post({ status: `${"x".repeat(470)} https://example.com/${"y".repeat(100)}` });
    assert.equal(withLink.status, 200);
  });

  it("replays the first status for a repeated Idempotency-Key, and only then", async () => {
    const first = (await (await post({ status: "Once" }, { "idempotency-key": "k1" })).json()) as {
      id: string;
    };
    const again = (await (await post({ status: "Once" }, { "idempotency-key": "k1" })).json()) as {
      id: string;
    };
    const other = (await (await post({ status: "Once" }, { "idempotency-key": "k2" })).json()) as {
      id: string;
    };
    assert.equal(again.id, first.id);
    assert.notEqual(other.id, first.id);
    assert.equal(sandbox.statuses.filter((status) => status.text === "Once").length, 2);
  });

  it("answers a status in Mastodon's shape, with a page at its URL", async () => {
    const created = (await (
      await post({ status: "See https://example.com #IndieWeb\n\nBye" })
    ).json()) as Record<string, unknown>;
    assert.equal(created.url, `${sandbox.url}/@alice/${created.id}`);
    assert.equal(created.uri, `${sandbox.url}/users/alice/statuses/${created.id}`);
    assert.equal(created.visibility, "public");
    assert.deepEqual(created.tags, [{ name: "IndieWeb", url: `${sandbox.url}/tags/indieweb` }]);
    assert.match(String(created.content), /^<p>See <a href="https:\/\/example\.com"/);
    const fetched = await fetch(`${sandbox.url}/api/v1/statuses/${created.id}`);
    assert.equal(((await fetched.json()) as { id: string }).id, created.id);
    const page = await fetch(String(created.url));
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await page.text(), /Alice/);
    const missing = await fetch(`${sandbox.url}/api/v1/statuses/1`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: "Record not found" });
  });

  it("takes multipart uploads with a description, and serves the file", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3])], { type: "image/png" }), "dot.png");
    form.append("description", "A dot");
    const response = await fetch(`${sandbox.url}/api/v2/media`, {
      method: "POST",
      headers: { authorization: "Bearer token" },
      body: form,
    });
    assert.equal(response.status, 200);
    const media = (await response.json()) as { id: string; description: string; url: string; type: string };
    assert.equal(media.description, "A dot");
    assert.equal(media.type, "image");
    const file = await fetch(media.url);
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), new Uint8Array([1, 2, 3]));
  });

  it("refuses a search that resolves without a token", async () => {
    const response = await fetch(`${sandbox.url}/api/v2/search?q=x&resolve=true`);
    assert.equal(response.status, 401);
  });

  it("fails on request: status and message, then back to normal", async () => {
    sandbox.setFailure(500, "Something broke");
    const failed = await post({ status: "Hi" });
    assert.equal(failed.status, 500);
    assert.deepEqual(await failed.json(), { error: "Something broke" });
    sandbox.clearBehaviour();
    assert.equal((await post({ status: "Hi" })).status, 200);
  });

  it("hangs on request until the client gives up", async () => {
    sandbox.hang();
    await assert.rejects(
      fetch(`${sandbox.url}/api/v1/statuses`, {
        method: "POST",
        headers: { authorization: "Bearer token" },
        body: new URLSearchParams({ status: "Hi" }),
        signal: AbortSignal.timeout(200),
      }),
      { name: "TimeoutError" },
    );
  });

  it("holds requests until released, one at a time and oldest first, then all once cleared", async () => {
    sandbox.holdUntilReleased();
    const earlier = sandbox.requests.length;
    const came = (count: number) => sandbox.requests.length === earlier + count;
    const answered: string[] = [];
    const send = (status: string) =>
      post({ status }).then((response) => {
        answered.push(status);
        return response;
      });
    const first = send("First");
    await until("the first request has come", () => came(1));
    const second = send("Second");
    await until("the second request has come", () => came(2));
    sandbox.release();
    assert.equal((await first).status, 200);
    assert.deepEqual(answered, ["First"], "the second still waits");
    // A release made before its request comes lets that request through.
    sandbox.release();
    assert.equal((await second).status, 200);
    sandbox.release();
    assert.equal((await send("Third")).status, 200);
    const fourth = send("Fourth");
    await until("the fourth request has come", () => came(4));
    assert.deepEqual(answered, ["First", "Second", "Third"]);
    sandbox.clearBehaviour();
    assert.equal((await fourth).status, 200);
    assert.deepEqual(
      sandbox.statuses.slice(-4).map((status) => status.text),
      ["First", "Second", "Third", "Fourth"],
    );
  });

  it("applies a failure to the next few requests only with `times`", async () => {
    sandbox.setBehaviour({ status: 503, error: "Busy", times: 1 });
    assert.equal((await post({ status: "A" })).status, 503);
    assert.equal((await post({ status: "B" })).status, 200);
  });

  it("answers the first requests normally and applies from the next one on with `skip`", async () => {
    sandbox.setBehaviour({ status: 503, error: "Busy", skip: 2, times: 1 });
    assert.equal((await post({ status: "C" })).status, 200);
    assert.equal((await post({ status: "D" })).status, 200);
    assert.equal((await post({ status: "E" })).status, 503);
    assert.equal((await post({ status: "F" })).status, 200);
  });
});
