// Finding a copy that an earlier send made although its answer never arrived, among the account's
// latest statuses: for servers where a resend with the same Idempotency-Key does not return the
// first status (GoToSocial ignores the key; Pixelfed refuses it with 400). A status is the copy when
// it was made at or after the earlier attempt began and carries the same text: GoToSocial's `text`
// and Pixelfed's `content_text` are the source as sent; elsewhere the HTML is read back as text, which
// holds a resolved mention without its domain (decision 0066 asks again with the key where it must).
import { htmlToText } from "../../contract/plain-text.ts";
import type { MastodonApi, MastodonStatus } from "./mastodon-api.ts";

/** The clocks of possekit and the instance may differ by this much. */
const clockSkewMs = 2 * 60 * 1000;

const normalized = (text: string) => text.replace(/\s+/g, " ").trim();

function sourceOf(status: MastodonStatus): string | undefined {
  if (status.text) return status.text;
  if (status.content_text) return status.content_text;
  // Mastodon's links show their address (hashtags and mentions show their name): the text alone.
  return status.content ? htmlToText(status.content, { links: "drop" }) : undefined;
}

export function isCopy(status: MastodonStatus, text: string, since: number | undefined): boolean {
  if (since !== undefined) {
    const created = Date.parse(status.created_at ?? "");
    if (!Number.isFinite(created) || created < since - clockSkewMs) return false;
  }
  const source = sourceOf(status);
  return source !== undefined && normalized(source) === normalized(text);
}

/** The newest of the account's recent statuses that is this copy, if any. */
export async function findCopy(
  api: MastodonApi,
  fields: { text: string; since?: number },
): Promise<MastodonStatus | undefined> {
  const { id } = await api.verifyCredentials();
  const recent = await api.recentStatuses(id);
  return recent.find((status) => isCopy(status, fields.text, fields.since));
}
