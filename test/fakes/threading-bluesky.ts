// The fake PDS and a Bluesky target that sends long posts as threads, as the thread tests set them
// up (decisions 0055 and 0062): no link card and no appended URL, so each post holds one paragraph.
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type FakePds, startFakePds } from "./bluesky-pds.ts";

/** One paragraph of about 230 graphemes: three of them make a thread of three posts. */
export const threadParagraph = (n: number) =>
  `Part ${n}: ${"Herons on the canal, cormorants on the posts, a kingfisher on the lock gate. ".repeat(3).trim()}`;

/** A fake PDS with one account, and a Bluesky target on it with `thread: true`. */
export async function startThreadingBluesky(): Promise<{ pds: FakePds; bluesky: BlueskySyndicator }> {
  const pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
  const bluesky = new BlueskySyndicator({
    handle: "alice.example.com",
    password: "pw",
    serviceUrl: pds.url,
    thread: true,
    linkCard: false,
    appendUrl: "never",
  });
  return { pds, bluesky };
}
