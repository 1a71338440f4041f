// Files attached to an entry, whichever element named them: RSS <enclosure>, Atom
// <link rel="enclosure">, Media RSS <media:content> (alone or in a <media:group>). Images become
// the post's photos, everything else stays an enclosure; the normaliser resolves and de-duplicates.
import type { MediaNs } from "feedsmith";
import type { EntryDraft } from "../entry-draft.ts";

type Attachments = Pick<EntryDraft, "photos" | "enclosures">;

export interface Attachment {
  url?: string | undefined;
  type?: string | undefined;
  length?: number | undefined;
  title?: string | undefined;
}

const isImage = (type: string | undefined, medium?: string) =>
  medium?.toLowerCase() === "image" || (type ?? "").toLowerCase().startsWith("image/");

/** Adds one attachment to `into`: an image as a photo (its title as alt text), else as an enclosure. */
export function addAttachment(into: Attachments, file: Attachment, medium?: string): void {
  const url = file.url?.trim();
  if (!url) return;
  if (isImage(file.type, medium)) {
    const alt = file.title?.trim();
    into.photos.push(alt ? { url, alt } : { url });
    return;
  }
  const type = file.type?.trim().toLowerCase();
  into.enclosures.push({
    url,
    ...(type ? { type } : {}),
    ...(file.length && file.length > 0 ? { length: file.length } : {}),
    ...(file.title?.trim() ? { title: file.title.trim() } : {}),
  });
}

/** The Media RSS files of an entry. */
export function addMedia(into: Attachments, media: MediaNs.ItemOrFeed | undefined): void {
  if (!media) return;
  const contents = [
    ...(media.contents ?? []),
    ...(media.groups ?? []).flatMap((group) => group.contents ?? []),
  ];
  for (const content of contents) {
    addAttachment(
      into,
      {
        url: content.url,
        type: content.type,
        length: content.fileSize,
        title: content.description?.value ?? content.title?.value,
      },
      content.medium,
    );
  }
}
