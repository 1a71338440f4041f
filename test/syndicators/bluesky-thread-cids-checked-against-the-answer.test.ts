// Decision 0055: a Bluesky thread's replies name their parents by CIDs computed before anything is sent.
// The PDS answers applyWrites with the CID it gave each record; one that differs from ours means a
// reply may hang off nothing, so the send is refused with the post's number and both CIDs, not
// reported as done. (The real PDS's answers agree with ours: interop/bluesky/bluesky-thread-real-pds.)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import type { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import type { FakePds } from "../fakes/bluesky-pds.ts";
import { startThreadingBluesky, threadParagraph } from "../fakes/threading-bluesky.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const paragraph = threadParagraph;
const long = note({ content: { text: [1, 2, 3].map(paragraph).join("\n\n"), html: "" } });

describe("Bluesky: a thread's CIDs are checked against the PDS's answer", () => {
  let pds: FakePds;
  let syndicator: BlueskySyndicator;
  before(async () => {
    ({ pds, bluesky: syndicator } = await startThreadingBluesky());
  });
  after(() => pds.close());

  it("previews three posts of at most 300 graphemes", () => {
    const preview = syndicator.preview(long, publication);
    assert.deepEqual(
      preview.thread?.map((post) => post.text),
      [1, 2, 3].map(paragraph),
    );
  });

  it("refuses a send whose answer names other CIDs than the records built", async () => {
    const result = (n: number, cid: string) => ({
      $type: "com.atproto.repo.applyWrites#createResult",
      uri: `at://${pds.did}/app.bsky.feed.post/${n}`,
      cid,
      validationStatus: "valid",
    });
    const wrong = "bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm";
    pds.setBehaviour({
      nsid: "com.atproto.repo.applyWrites",
      status: 200,
      body: { commit: { cid: wrong, rev: "3lfakerev0002" }, results: [1, 2, 3].map((n) => result(n, wrong)) },
    });
    await assert.rejects(
      syndicator.syndicate(long, publication, callOptions("thread-cids")),
      (error: unknown) =>
        error instanceof SyndicationError &&
        error.permanent &&
        /post 1 of the thread with CID/.test(error.message),
    );
    assert.equal(pds.calls.filter((call) => call.nsid === "com.atproto.repo.applyWrites").length, 1);
  });
});
