// The words a user typed into a preview, wherever they are sent from (decision 0046): the preview's own
// "Send this", or the row's Syndicate button while the preview is open in the row. They are saved
// with the send when they differ from what the target would receive now, refused like a save when
// the service would refuse them, and never dropped.
import { z } from "zod";
import type { Translate } from "../../contract/i18n.ts";
import type { CopyPreview } from "../../contract/index.ts";
import type { Post } from "../../contract/posts.ts";
import { MAX_OWN_TEXT_LENGTH } from "../../syndication/copies/own-texts.ts";
import type { PageServices } from "./services.ts";

/** Textareas send CRLF line ends; the services count (and store) LF. */
export function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

const uid = z.string().min(1).max(2048);
export const typedTextForm = z.object({ target_uid: uid, text: z.string().max(MAX_OWN_TEXT_LENGTH) });

export interface TypedText {
  targetUid: string;
  text: string;
}

/** The typed words a form carries beside its own fields; undefined when it carries none. */
export function typedTextOf(body: unknown): TypedText | undefined {
  const parsed = typedTextForm.safeParse(body ?? {});
  if (!parsed.success) return undefined;
  return { targetUid: parsed.data.target_uid, text: normaliseText(parsed.data.text) };
}

/** Why a text cannot be saved for a target, or undefined when it can. */
export function refusalOf(
  t: Translate,
  target: string,
  text: string,
  preview: CopyPreview | null,
): string | undefined {
  if (preview?.text === undefined) return t("syndicate.preview.cannotEdit", { target });
  if (!text.trim()) return t("syndicate.preview.empty");
  if (!preview.over) return undefined;
  return t("syndicate.preview.refusedOver", {
    target,
    count: preview.length?.count ?? 0,
    limit: preview.length?.limit ?? 0,
  });
}

export type KeptText =
  | { kind: "unchanged" }
  | { kind: "saved"; target: string }
  | { kind: "refused"; target: string; text: string };

/**
 * Saves `typed` for the post when it differs from what its target would receive now; refuses it
 * (saving nothing) when the service would refuse it. The caller sends only when it was not refused.
 */
export async function keepTypedText(
  services: PageServices,
  t: Translate,
  post: Post,
  typed: TypedText,
): Promise<KeptText> {
  const name = services.syndicators.find((s) => s.info.uid === typed.targetUid)?.info.name ?? typed.targetUid;
  const now = (await services.syndication.copies.preview(post)).find(
    (target) => target.uid === typed.targetUid,
  );
  if (now?.preview?.text === typed.text) return { kind: "unchanged" };
  const preview = services.syndication.copies.previewText(post, typed.targetUid, typed.text);
  const refusal = refusalOf(t, name, typed.text, preview);
  if (refusal) return { kind: "refused", target: name, text: refusal };
  await services.syndication.copies.saveOwnText(post, typed.targetUid, typed.text);
  return { kind: "saved", target: name };
}
