// What a copy holds, in a few bytes: a digest of what its target receives (the text, the photos and
// their alt text, the link card, what it likes or boosts), found with the syndicator's preview. A
// copy follows an edit of its post only when this changes (decision 0028).
import { createHash } from "node:crypto";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";

export function copyDigest(preview: CopyPreview): string {
  const held = {
    text: preview.text ?? null,
    photos: preview.photos.map((photo) => [photo.url, photo.alt ?? ""]),
    card: preview.linkCard ?? null,
    action: preview.action ?? null,
    // Absent (not null) for a single post, so that digests made before threads existed still match.
    thread: preview.thread?.map((post) => post.text),
  };
  return createHash("sha256").update(JSON.stringify(held)).digest("base64url");
}

/**
 * What `syndicator` would send now, with the user's own words or the site's choice if any
 * (`wordsFor`); null when it cannot preview.
 */
export function previewFor(
  syndicator: SyndicatorPlugin,
  properties: PostProperties,
  publication: Publication,
  words: PreviewOptions,
): CopyPreview | null {
  return syndicator.preview?.(properties, publication, words) ?? null;
}

/** The digest of what `syndicator` would send now; null when it cannot preview. */
export function digestFor(
  syndicator: SyndicatorPlugin,
  properties: PostProperties,
  publication: Publication,
  words: PreviewOptions,
): string | null {
  const preview = previewFor(syndicator, properties, publication, words);
  return preview ? copyDigest(preview) : null;
}
