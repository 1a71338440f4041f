// The facets of a post's text, found as the official Bluesky client finds them: @atproto/api's
// RichText marks links (also bare domains such as example.com, by the list of top-level domains),
// @mentions and #hashtags, at UTF-8 byte offsets. Mentions point at a DID, not a handle, so each is
// resolved; one that resolves to nobody stays plain text, as in the official client.
import { createRequire } from "node:module";
import type { AppBskyRichtextFacet, RichText as RichTextClass } from "@atproto/api";
import type { CopyFacet } from "../../contract/syndicator.ts";

export type Facet = Pick<AppBskyRichtextFacet.Main, "index" | "features">;

/**
 * @atproto/api is large (its lexicons): it is loaded when the first post is previewed or sent, not
 * at start-up. A preview is synchronous, so it is required rather than imported.
 */
let richTextClass: typeof RichTextClass | undefined;
const require = createRequire(import.meta.url);

const mentionType = "app.bsky.richtext.facet#mention";

const linkType = "app.bsky.richtext.facet#link";
const encoder = new TextEncoder();
/** Punctuation that ends a sentence, not a URL: "(see https://x.example/a)…" links to …/a. */
const trailingPunctuation = /[.,;:!?…"'’”»]$/u;

/**
 * A link facet without the punctuation that follows the address in the text (a closing bracket
 * without its opening one, an ellipsis), which RichText keeps when no space follows it.
 */
function trimmedLink(facet: Facet): Facet {
  const [feature] = facet.features;
  if (facet.features.length !== 1 || feature?.$type !== linkType) return facet;
  let uri = String((feature as { uri?: unknown }).uri);
  const original = uri;
  for (;;) {
    if (trailingPunctuation.test(uri)) uri = uri.slice(0, -1);
    else if (uri.endsWith(")") && uri.split(")").length > uri.split("(").length) uri = uri.slice(0, -1);
    else break;
  }
  if (uri === original) return facet;
  const cut = encoder.encode(original).length - encoder.encode(uri).length;
  return {
    index: { byteStart: facet.index.byteStart, byteEnd: facet.index.byteEnd - cut },
    features: [{ ...feature, uri } as Facet["features"][number]],
  };
}

/** The facets as the official client finds them before any look-up: a mention holds its handle. */
function unresolvedFacets(text: string): Facet[] {
  richTextClass ??= (require("@atproto/api") as typeof import("@atproto/api")).RichText;
  const rich = new richTextClass({ text });
  rich.detectFacetsWithoutResolution();
  return (rich.facets ?? []).map(trimmedLink);
}

/** What a preview shows: the facets the send makes, with each mention's handle in place of its DID. */
export function previewFacets(text: string): CopyFacet[] {
  return unresolvedFacets(text).map(({ index, features }) => ({
    index: { byteStart: index.byteStart, byteEnd: index.byteEnd },
    features: features.map((feature) =>
      feature.$type === mentionType
        ? { $type: mentionType, handle: String((feature as { did: string }).did) }
        : { ...(feature as CopyFacet["features"][number]) },
    ),
  }));
}

export async function detectFacets(
  text: string,
  resolveHandle: (handle: string) => Promise<string | undefined>,
): Promise<Facet[]> {
  const facets: Facet[] = [];
  for (const { index, features } of unresolvedFacets(text)) {
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
