// Decision 0060's edit on one Mastodon API server, as the tests of each server make it: a post with
// photos a and b is sent, then edited to b (its alt text now B2) and a new c, the syndicator told the
// photos the copy was sent. The tests then read what became of the copy's media.
import assert from "node:assert/strict";
import type { MastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { jpegBytes, type PhotoServer } from "../fakes/photo-server.ts";
import { callOptions, changeOptions, note, siteServedBy } from "./fixtures.ts";

export interface TwoPhotosEdited {
  /** The copy, after the edit. */
  status: MastodonSandbox["statuses"][number];
  /** The media ids a and b were sent as. */
  mediaA: string | undefined;
  mediaB: string | undefined;
  /** How many uploads the sandbox had before the edit. */
  uploads: number;
}

/** `folder` keeps each server's photos apart on one photo server; `editedText`, the edit's content. */
export async function sendTwoPhotosThenEdit(
  sandbox: MastodonSandbox,
  syndicator: MastodonSyndicator,
  photos: PhotoServer,
  { folder = "", editedText = "Two photos" }: { folder?: string; editedText?: string } = {},
): Promise<TwoPhotosEdited> {
  const site = siteServedBy(photos.url);
  const [a, b, c] = ["/a.jpg", "/b.jpg", "/c.jpg"].map((path) => photos.add(`${folder}${path}`, jpegBytes));
  assert.ok(a && b && c);
  const url = await syndicator.syndicate(
    note({
      content: "Two photos",
      photo: [
        { value: a, alt: "A" },
        { value: b, alt: "B" },
      ],
    }),
    site,
    callOptions(),
  );
  const status = sandbox.statuses.find((s) => s.url === url);
  assert.ok(status);
  const [mediaA, mediaB] = status.media.map((m) => m.id);
  const uploads = sandbox.media.length;
  await syndicator.update(
    note({
      content: editedText,
      photo: [
        { value: b, alt: "B2" },
        { value: c, alt: "C" },
      ],
    }),
    site,
    {
      ...changeOptions(url),
      sentPhotos: [
        { url: a, alt: "A" },
        { url: b, alt: "B" },
      ],
    },
  );
  return { status, mediaA, mediaB, uploads };
}
