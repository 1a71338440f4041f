import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { callOptions, publication } from "./fixtures.ts";

describe("Mastodon: likes, reposts and replies of Mastodon statuses", () => {
  let sandbox: MastodonSandbox;
  let syndicator: MastodonSyndicator;
  const post = (fields: Record<string, unknown>) => ({
    type: "entry",
    url: "https://example.org/likes/1/",
    published: "2024-05-01T10:00:00.000Z",
    ...fields,
  });

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
    syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
  });
  after(() => sandbox.close());

  it("a like of a status on the instance favourites it, found by the id in its URL", async () => {
    const status = sandbox.addStatus("Something to like");
    const url = await syndicator.syndicate(post({ "like-of": [status.url] }), publication, callOptions());
    assert.equal(url, status.url);
    assert.deepEqual(sandbox.favourites, [status.id]);
    assert.equal(sandbox.statuses.length, 0, "no status was posted");
    assert.ok(!sandbox.requests.some((request) => request.path === "/api/v2/search"));
  });

  it("a repost boosts the status and returns the boosted status's page, not the boost's JSON activity", async () => {
    const status = sandbox.addStatus("Something to boost");
    const url = await syndicator.syndicate(post({ "repost-of": [status.uri] }), publication, callOptions());
    assert.equal(sandbox.reblogs.at(-1)?.reblogOf?.id, status.id);
    assert.equal(url, status.url);
    assert.doesNotMatch(url, /\/activity$/);
  });

  it("a reply to a status of another server is found through search and posted as a reply", async () => {
    const remote = sandbox.addStatus("A remote status", {
      username: "bob",
      remoteUrl: "https://remote.example/@bob/42",
    });
    await syndicator.syndicate(
      post({ "in-reply-to": ["https://remote.example/@bob/42"], content: "Indeed!" }),
      publication,
      callOptions(),
    );
    const reply = sandbox.statuses.at(-1);
    assert.equal(reply?.inReplyToId, remote.id);
    assert.equal(reply?.text, "Indeed!");
    const search = sandbox.requests.find((request) => request.path === "/api/v2/search");
    assert.ok(search?.authorized, "the search was made as the user, so that it may resolve remote statuses");
  });

  it("a reply to something Mastodon cannot find is refused for good, saying why", async () => {
    await assert.rejects(
      syndicator.syndicate(
        post({ "in-reply-to": ["https://blog.example/post"], content: "Hi" }),
        publication,
        callOptions(),
      ),
      (error: unknown) => {
        assert.ok(error instanceof SyndicationError);
        assert.match(
          error.message,
          /^Mastodon: cannot reply to https:\/\/blog\.example\/post: .* does not know it as a status/,
        );
        assert.equal(error.permanent, true);
        return true;
      },
    );
  });
});
