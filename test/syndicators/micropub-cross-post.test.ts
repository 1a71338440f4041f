import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { callOptions, note, publication } from "./fixtures.ts";

describe("Micropub: cross-posting to another site", () => {
  let endpoint: FakeMicropub;
  let accepting: FakeMicropub;
  let syndicator: MicropubSyndicator;

  before(async () => {
    endpoint = await startFakeMicropub({ token: "their-token" });
    accepting = await startFakeMicropub({ token: "their-token", status: 202, location: "relative" });
    syndicator = new MicropubSyndicator(
      { micropubEndpoint: endpoint.url, accessToken: "their-token", name: "Other site" },
      {},
    );
  });
  beforeEach(() => endpoint.setFailure(null));
  after(() => Promise.all([endpoint.close(), accepting.close()]));

  it("posts form-encoded h=entry with content, categories and photos, and returns the Location", async () => {
    const url = await syndicator.syndicate(
      note({ category: ["indieweb", "notes"], photo: [{ url: "https://example.org/media/a.jpg" }] }),
      publication,
      callOptions(),
    );
    assert.equal(url, endpoint.posts.at(-1));
    const request = endpoint.requests.at(-1);
    assert.equal(request?.contentType, "application/x-www-form-urlencoded");
    assert.deepEqual(request?.form, {
      h: ["entry"],
      content: ["Hello from my site, see https://example.com/page for more"],
      "category[]": ["indieweb", "notes"],
      "photo[]": ["https://example.org/media/a.jpg"],
    });
  });

  it("uses JSON when a photo has alt text, which form encoding cannot carry", async () => {
    await syndicator.syndicate(
      note({ name: "Title", photo: [{ url: "/media/b.jpg", alt: "A bicycle" }] }),
      publication,
      callOptions(),
    );
    const request = endpoint.requests.at(-1);
    assert.equal(request?.contentType, "application/json");
    assert.deepEqual(request?.json, {
      type: ["h-entry"],
      properties: {
        name: ["Title"],
        content: ["Hello from my site, see https://example.com/page for more"],
        photo: [{ value: "https://example.org/media/b.jpg", alt: "A bicycle" }],
      },
    });
  });

  it("makes a relative Location absolute, and takes 202 Accepted", async () => {
    const other = new MicropubSyndicator({ micropubEndpoint: accepting.url, accessToken: "their-token" }, {});
    const url = await other.syndicate(note(), publication, callOptions());
    assert.equal(url, accepting.posts.at(-1));
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/notes\/1$/);
  });

  it("errors carry the endpoint's error_description and status", async () => {
    const wrong = new MicropubSyndicator(
      { micropubEndpoint: endpoint.url, accessToken: "not-theirs", name: "Other site" },
      {},
    );
    await assert.rejects(wrong.syndicate(note(), publication, callOptions()), (error: unknown) => {
      assert.ok(error instanceof SyndicationError);
      assert.equal(error.message, "Other site: 403 The access token is not valid for this site");
      assert.equal(error.code, "forbidden");
      assert.equal(error.permanent, true);
      return true;
    });
    endpoint.setFailure({
      status: 503,
      error: "temporarily_unavailable",
      description: "Down for maintenance",
    });
    await assert.rejects(syndicator.syndicate(note(), publication, callOptions()), {
      message: "Other site: 503 Down for maintenance",
      permanent: false,
    });
  });

  it("does not follow a 302 (a followed POST becomes a GET): the send fails with the 302", async () => {
    const redirecting = await startFakeMicropub({ token: "their-token", redirect: true });
    try {
      const other = new MicropubSyndicator(
        { micropubEndpoint: redirecting.url, accessToken: "their-token", name: "Moved site" },
        {},
      );
      await assert.rejects(other.syndicate(note(), publication, callOptions()), (error: unknown) => {
        assert.ok(error instanceof SyndicationError);
        assert.match(error.message, /^Moved site: 302/);
        assert.equal(error.status, 302);
        return true;
      });
      assert.deepEqual(redirecting.moved, [], "the redirect's target was never asked");
    } finally {
      await redirecting.close();
    }
  });

  it("does not claim idempotency: a repeat makes a second copy", () => {
    assert.equal(syndicator.honoursIdempotencyKey, false);
  });
});
