import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { recordKeyFor, tidPattern } from "../../src/syndicators/bluesky/record-key.ts";
import { SyndicationError } from "../../src/syndicators/syndication-error.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { callOptions, note, publication } from "./fixtures.ts";

describe("Bluesky: the record key makes a repeated send find the first post", () => {
  let pds: FakePds;
  let explicitPds: FakePds;
  before(async () => {
    pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
    explicitPds = await startFakePds({
      handle: "alice.example.com",
      password: "pw",
      duplicateRecordError: { status: 400, error: "RecordAlreadyExists", message: "Record already exists" },
    });
  });
  after(() => Promise.all([pds.close(), explicitPds.close()]));

  it("derives a valid TID from the key and the published date, the same every time", () => {
    const key = recordKeyFor("abc", "2024-05-01T10:00:00.000Z");
    assert.match(key, tidPattern);
    assert.equal(recordKeyFor("abc", "2024-05-01T10:00:00.000Z"), key);
    assert.notEqual(recordKeyFor("abd", "2024-05-01T10:00:00.000Z"), key);
    assert.match(recordKeyFor("abc", undefined), tidPattern);
    assert.match(recordKeyFor("abc", "not a date"), tidPattern);
    // Keys sort like the posts' dates.
    assert.ok(recordKeyFor("x", "2024-01-01T00:00:00Z") < recordKeyFor("x", "2025-01-01T00:00:00Z"));
  });

  for (const [name, target] of [
    ["today's PDS (500 InternalServerError on a taken key)", () => pds],
    ["a PDS with an explicit error for a taken key", () => explicitPds],
  ] as const) {
    it(`returns the first post's URL and leaves one record: ${name}`, async () => {
      const fake = target();
      const syndicator = new BlueskySyndicator({
        handle: "alice.example.com",
        password: "pw",
        serviceUrl: fake.url,
      });
      const first = await syndicator.syndicate(note(), publication, callOptions("same-key"));
      const second = await syndicator.syndicate(note(), publication, callOptions("same-key"));
      assert.equal(second, first);
      assert.equal(fake.records.length, 1);
      const creates = fake.calls.filter((call) => call.nsid === "com.atproto.repo.createRecord");
      assert.equal(creates.length, 2);
      assert.notEqual(creates[1]?.status, 200, "the second createRecord was refused by the PDS");
      assert.ok(fake.calls.some((call) => call.nsid === "com.atproto.repo.getRecord" && call.status === 200));
      assert.equal(syndicator.honoursIdempotencyKey, true);
    });
  }

  it("still reports a real refusal, which no record explains", async () => {
    const syndicator = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "pw",
      serviceUrl: pds.url,
    });
    pds.setBehaviour({
      nsid: "com.atproto.repo.createRecord",
      status: 400,
      body: {
        error: "InvalidRequest",
        message: "Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes",
      },
      times: 1,
    });
    await assert.rejects(
      syndicator.syndicate(note(), publication, callOptions("refused")),
      (error: unknown) => {
        assert.ok(error instanceof SyndicationError);
        assert.equal(
          error.message,
          "Bluesky: 400 InvalidRequest: Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes",
        );
        assert.equal(error.status, 400);
        assert.equal(error.permanent, true);
        return true;
      },
    );
  });
});
