// The facets of a post's text, found as the official Bluesky client finds them: @atproto/api's
// RichText marks links (also bare domains such as example.com, by the list of top-level domains),
// @mentions and #hashtags, at UTF-8 byte offsets. Mentions point at a DID, not a handle, so each is
// resolved; one that resolves to nobody stays plain text, as in the official client.
import type { AppBskyRichtextFacet, RichText as RichTextClass } from "@atproto/api";

export type Facet = Pick<AppBskyRichtextFacet.Main, "index" | "features">;

/** @atproto/api is large (its lexicons); it is loaded when the first post is sent, not at start-up. */
let richTextClass: Promise<typeof RichTextClass> | undefined;

const mentionType = "app.bsky.richtext.facet#mention";

export async function detectFacets(
  text: string,
  resolveHandle: (handle: string) => Promise<string | undefined>,
): Promise<Facet[]> {
  richTextClass ??= import("@atproto/api").then((module) => module.RichText);
  const RichText = await richTextClass;
  const rich = new RichText({ text });
  rich.detectFacetsWithoutResolution();
  const facets: Facet[] = [];
  for (const { index, features } of rich.facets ?? []) {
    const resolved: Facet["features"] = [];
    for (const feature of features) {
      if (feature.$type !== mentionType) {
        resolved.push(feature);
        continue;
      }
      // Before resolution, RichText keeps the mentioned handle where the DID belongs.
      const did = await resolveHandle(String((feature as { did: string }).did));
      if (did) resolved.push({ ...feature, did } as Facet["features"][number]);
    }
    if (resolved.length > 0) facets.push({ index, features: resolved });
  }
  return facets;
}
