// What one attempt sent to its target (decision 0054): the text, the photos with their alt text and
// where the link to the post went, kept on the attempt so that the history still says what a copy
// said after the post was edited or deleted, or the template changed. Found with the syndicator's
// preview, which is what its send makes (the same compose functions), and recorded before the send.
import { z } from "zod";
import type { CopyPreview } from "../../contract/syndicator.ts";

export const sentCopySchema = z.object({
  text: z.string().nullable(),
  photos: z.array(z.object({ url: z.string(), alt: z.string().nullable() })),
  /** Where the link to the post went: into the text, a link card, nowhere. */
  permalink: z.enum(["text", "card", "none"]),
  /** The link card's address and title, when the copy has one. */
  card: z.object({ uri: z.string(), title: z.string() }).nullable(),
  /** What the copy likes, boosts, answers or captures instead of (or besides) a text. */
  action: z.object({ kind: z.string(), url: z.string() }).nullable(),
});

export type SentCopy = z.infer<typeof sentCopySchema>;

export function sentCopyOf(preview: CopyPreview): SentCopy {
  return {
    text: preview.text ?? null,
    photos: preview.photos.map((photo) => ({ url: photo.url, alt: photo.alt ?? null })),
    permalink: preview.permalink,
    card: preview.linkCard ? { uri: preview.linkCard.uri, title: preview.linkCard.title } : null,
    action: preview.action ? { kind: preview.action.kind, url: preview.action.url } : null,
  };
}

/** A stored record read back; anything that is not one (a row from before it was kept) is null. */
export function readSentCopy(value: unknown): SentCopy | null {
  const parsed = sentCopySchema.safeParse(typeof value === "string" ? safeJson(value) : value);
  return parsed.success ? parsed.data : null;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
