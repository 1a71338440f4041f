// The few Mastodon REST methods a syndicator needs, with their answers validated. One instance per
// syndicate() call: it carries that call's AbortSignal.
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { SyndicationError } from "../../contract/syndication-error.ts";
import { readJson, refusal, send, type Target, unreachable } from "../shared/http.ts";
import type { FetchedPhoto } from "../shared/photos.ts";

const statusSchema = z.object({
  id: z.string(),
  uri: z.string(),
  url: z.string().nullish(),
  reblog: z.object({ id: z.string(), uri: z.string(), url: z.string().nullish() }).nullish(),
  favourited: z.boolean().nullish(),
  reblogged: z.boolean().nullish(),
  media_attachments: z.array(z.object({ id: z.string(), description: z.string().nullish() })).nullish(),
  /** The status it answers, and who wrote it: how a thread is followed through GET …/context. */
  in_reply_to_id: z.string().nullish(),
  account: z.object({ id: z.string() }).nullish(),
  created_at: z.string().nullish(),
  /** HTML. */
  content: z.string().nullish(),
  /** The source text: GoToSocial's and Mastodon's `text` (when given), Pixelfed's `content_text`. */
  text: z.string().nullish(),
  content_text: z.string().nullish(),
});
export type MastodonStatus = z.output<typeof statusSchema>;

const mediaSchema = z.object({ id: z.string(), url: z.string().nullish() });
const searchSchema = z.object({ statuses: z.array(statusSchema) });

/**
 * Pixelfed answers a repeated Idempotency-Key with 400 {"error": "Duplicate idempotency key."}
 * (ApiV1Controller::statusCreate's abort_if, rendered by app/Exceptions/Handler.php).
 */
export function isDuplicateKeyRefusal(error: unknown): boolean {
  return (
    error instanceof SyndicationError &&
    error.status === 400 &&
    /duplicate idempotency key/i.test(error.message)
  );
}

/** Mastodon's error body is {"error": "…"}; some versions add "details". */
const mastodonMessage = (body: unknown) => {
  const parsed = z.object({ error: z.string() }).safeParse(body);
  return parsed.success ? { message: parsed.data.error } : undefined;
};

/** Waits between checks of a media attachment that is still being processed. */
const processingPauses = [250, 500, 1000, 2000];

export class MastodonApi {
  constructor(
    private readonly instanceUrl: string,
    private readonly accessToken: string,
    private readonly target: Target,
  ) {}

  private async call(method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}) {
    const response = await send(this.target, `${this.instanceUrl}${path}`, {
      method,
      headers: { accept: "application/json", authorization: `Bearer ${this.accessToken}`, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    if (!response.ok) throw await refusal(this.target, response, mastodonMessage);
    return response;
  }

  /** The account the token belongs to (GET /api/v1/accounts/verify_credentials): sends nothing. */
  async verifyCredentials(): Promise<{ id: string; username: string }> {
    const response = await this.call("GET", "/api/v1/accounts/verify_credentials");
    return readJson(
      this.target,
      response,
      z.object({ id: z.coerce.string(), username: z.string() }),
      "the credentials check",
    );
  }

  /** The account's latest statuses, newest first (GET /api/v1/accounts/:id/statuses). */
  async recentStatuses(accountId: string, limit = 20): Promise<MastodonStatus[]> {
    const query = new URLSearchParams({ limit: String(limit), exclude_reblogs: "true" });
    const response = await this.call(
      "GET",
      `/api/v1/accounts/${encodeURIComponent(accountId)}/statuses?${query}`,
    );
    return readJson(this.target, response, z.array(statusSchema), "the account's statuses");
  }

  /** Uploads a photo with its alt text and waits until Mastodon has processed it. */
  async uploadMedia(photo: FetchedPhoto): Promise<string> {
    const form = new FormData();
    form.append("file", new Blob([photo.bytes], { type: photo.mimeType }), photo.filename);
    if (photo.alt) form.append("description", photo.alt);
    const response = await this.call("POST", "/api/v2/media", form);
    const processing = response.status === 202;
    const media = await readJson(this.target, response, mediaSchema, "the media upload");
    if (processing) await this.waitUntilProcessed(media.id);
    return media.id;
  }

  /** POST /api/v2/media answers 202 while the file is processed; GET answers 206 until it is done. */
  private async waitUntilProcessed(id: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.call("GET", `/api/v1/media/${encodeURIComponent(id)}`);
      await response.body?.cancel().catch(() => {});
      if (response.status === 200) return;
      const pause = processingPauses[Math.min(attempt, processingPauses.length - 1)] ?? 1000;
      try {
        await sleep(pause, undefined, { signal: this.target.signal });
      } catch (error) {
        throw unreachable(this.target, this.instanceUrl, error, false);
      }
    }
  }

  /** Posts a status; Mastodon answers a repeated Idempotency-Key with the first status. */
  async postStatus(fields: {
    status: string;
    mediaIds: string[];
    inReplyToId?: string;
    visibility: string;
    language?: string;
    idempotencyKey: string;
    contentType?: string;
  }): Promise<MastodonStatus> {
    const form = new URLSearchParams();
    form.set("status", fields.status);
    form.set("visibility", fields.visibility);
    if (fields.contentType) form.set("content_type", fields.contentType);
    if (fields.language) form.set("language", fields.language);
    for (const id of fields.mediaIds) form.append("media_ids[]", id);
    if (fields.inReplyToId) form.set("in_reply_to_id", fields.inReplyToId);
    const response = await this.call("POST", "/api/v1/statuses", form, {
      "idempotency-key": fields.idempotencyKey,
    });
    return readJson(this.target, response, statusSchema, "the new status");
  }

  /** One status (GET /api/v1/statuses/:id), with its media attachments. */
  async getStatus(id: string): Promise<MastodonStatus> {
    const response = await this.call("GET", `/api/v1/statuses/${encodeURIComponent(id)}`);
    return readJson(this.target, response, statusSchema, "the status");
  }

  /**
   * Edits a status (PUT /api/v1/statuses/:id, Mastodon 3.5+: Api::V1::StatusesController#update,
   * UpdateStatusService). The media ids it names are kept, each with the description given in
   * media_attributes; ids left out would be removed from the status.
   */
  async editStatus(
    id: string,
    fields: {
      status: string;
      media: { id: string; description: string }[];
      language?: string;
      contentType?: string;
    },
    /** How the alt texts go (SoftwareTraits.editAlt): Mastodon's form fields, JSON, or not at all. */
    alt: "form" | "json" | "none" = "form",
  ): Promise<MastodonStatus> {
    let body: BodyInit;
    const headers: Record<string, string> = {};
    if (alt === "json") {
      body = JSON.stringify({
        status: fields.status,
        ...(fields.contentType ? { content_type: fields.contentType } : {}),
        ...(fields.language ? { language: fields.language } : {}),
        media_ids: fields.media.map((item) => item.id),
        media_attributes: fields.media.map((item) => ({ id: item.id, description: item.description })),
      });
      headers["content-type"] = "application/json";
    } else {
      const form = new URLSearchParams();
      form.set("status", fields.status);
      if (fields.contentType) form.set("content_type", fields.contentType);
      if (fields.language) form.set("language", fields.language);
      for (const item of fields.media) {
        form.append("media_ids[]", item.id);
        if (alt === "none") continue;
        form.append("media_attributes[][id]", item.id);
        form.append("media_attributes[][description]", item.description);
      }
      body = form;
    }
    const response = await this.call("PUT", `/api/v1/statuses/${encodeURIComponent(id)}`, body, headers);
    return readJson(this.target, response, statusSchema, "the edited status");
  }

  /**
   * Sets a media's description (PUT /api/v1/media/:id with `description`): how Pleroma and Akkoma
   * change the alt text of a photo a status already holds (MediaController.update), before an edit.
   */
  async describeMedia(id: string, description: string): Promise<void> {
    const form = new URLSearchParams({ description });
    const response = await this.call("PUT", `/api/v1/media/${encodeURIComponent(id)}`, form);
    await response.body?.cancel().catch(() => {});
  }

  /**
   * Deletes a status (DELETE /api/v1/statuses/:id). A status that is gone (404) counts as deleted.
   * Mastodon limits deletions per account (30 in 30 minutes): its 429 says when to try again.
   */
  async deleteStatus(id: string): Promise<void> {
    await this.undo("DELETE", `/api/v1/statuses/${encodeURIComponent(id)}`);
  }

  /**
   * The statuses that answer this one, in depth-first order (GET /api/v1/statuses/:id/context:
   * Api::V1::StatusesController#context, descendants as the signed-in account may see them).
   */
  async descendants(id: string): Promise<MastodonStatus[]> {
    const response = await this.call("GET", `/api/v1/statuses/${encodeURIComponent(id)}/context`);
    const context = await readJson(
      this.target,
      response,
      z.object({ descendants: z.array(statusSchema) }),
      "the status's context",
    );
    return context.descendants;
  }

  async unfavourite(id: string): Promise<void> {
    await this.undo("POST", `/api/v1/statuses/${encodeURIComponent(id)}/unfavourite`);
  }

  async unreblog(id: string): Promise<void> {
    await this.undo("POST", `/api/v1/statuses/${encodeURIComponent(id)}/unreblog`);
  }

  /** Undoes something; what is not there any more (404) is undone already. */
  private async undo(method: string, path: string): Promise<void> {
    try {
      const response = await this.call(method, path);
      await response.body?.cancel().catch(() => {});
    } catch (error) {
      if (error instanceof SyndicationError && error.status === 404) return;
      throw error;
    }
  }

  async favourite(id: string): Promise<MastodonStatus> {
    const response = await this.call("POST", `/api/v1/statuses/${encodeURIComponent(id)}/favourite`);
    return readJson(this.target, response, statusSchema, "the favourite");
  }

  async reblog(id: string): Promise<MastodonStatus> {
    const response = await this.call("POST", `/api/v1/statuses/${encodeURIComponent(id)}/reblog`);
    return readJson(this.target, response, statusSchema, "the boost");
  }

  /** Finds (and, for a remote status, fetches) the status at a URL; undefined when there is none. */
  async findStatus(url: string): Promise<MastodonStatus | undefined> {
    const query = new URLSearchParams({ q: url, type: "statuses", resolve: "true", limit: "1" });
    const response = await this.call("GET", `/api/v2/search?${query}`);
    const result = await readJson(this.target, response, searchSchema, "the search");
    return result.statuses[0];
  }
}

/**
 * The address of a status as people open it (the ActivityPub id when it has no page). A boost is
 * its boosted status: the boost's own address is an ActivityPub activity that serves only JSON.
 */
export function statusUrl(status: MastodonStatus): string {
  const shown = status.reblog ?? status;
  return shown.url ?? shown.uri;
}
