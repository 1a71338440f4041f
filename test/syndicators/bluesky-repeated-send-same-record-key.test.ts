import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { recordKeyFor, tidPattern } from "../../src/syndicators/bluesky/record-key.ts";
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

  it("derives a valid TID from the idempotency key, the same every time", () => {
    const key = recordKeyFor("abc");
    assert.match(key, tidPattern);
    assert.equal(recordKeyFor("abc"), key);
    assert.notEqual(recordKeyFor("abd"), key);
    for (let i = 0; i < 200; i++) assert.match(recordKeyFor(`key-${i}`), tidPattern);
  });

  it("keeps the record key when the post's published date is edited between attempts", async () => {
    const fake = await startFakePds({ handle: "alice.example.com", password: "pw" });
    try {
      const syndicator = new BlueskySyndicator({
        handle: "alice.example.com",
        password: "pw",
        serviceUrl: fake.url,
      });
      const first = await syndicator.syndicate(
        note({ published: "2024-05-01T10:00:00.000Z" }),
        publication,
        callOptions("edited-date"),
      );
      const second = await syndicator.syndicate(
        note({ published: "2024-05-03T18:30:00.000Z" }),
        publication,
        callOptions("edited-date"),
      );
      assert.equal(second, first);
      assert.equal(fake.records.length, 1, "the resend found the first record");
    } finally {
      await fake.close();
    }
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
