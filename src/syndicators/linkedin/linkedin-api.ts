// The LinkedIn REST methods a syndicator needs (learn.microsoft.com/linkedin/marketing/
// community-management/shares/posts-api and …/images-api), with the headers every versioned call
// carries: `LinkedIn-Version` (YYYYMM) and `X-Restli-Protocol-Version: 2.0.0`. One instance per
// call: it carries that call's AbortSignal.
import { z } from "zod";
import { SyndicationError } from "../../contract/syndication-error.ts";
import { readJson, refusal, send, type Target } from "../shared/http.ts";
import type { FetchedPhoto } from "../shared/photos.ts";
import { secondsUntilNextUtcMidnight } from "./linkedin-rate-limit.ts";

/** LinkedIn's error body (learn.microsoft.com/linkedin/shared/api-guide/concepts/error-handling). */
const linkedinMessage = (body: unknown) => {
  const parsed = z.object({ message: z.string(), code: z.string().optional() }).safeParse(body);
  return parsed.success
    ? { message: parsed.data.message, ...(parsed.data.code ? { code: parsed.data.code } : {}) }
    : undefined;
};

const initializeUploadSchema = z.object({
  value: z.object({ uploadUrl: z.string().url(), image: z.string().startsWith("urn:li:image:") }),
});

export interface PostBody {
  author: string;
  commentary: string;
  visibility: "PUBLIC" | "CONNECTIONS";
  article?: { source: string; title: string; description: string; thumbnail?: string };
}

/** Where a copy is seen: the post's page on linkedin.com, by its URN. */
export const postUrl = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`;

/** The URN of a copy from its URL, as postUrl made it. */
export function postUrnOf(url: string): string | undefined {
  const match = /^https:\/\/www\.linkedin\.com\/feed\/update\/(urn:li:(?:share|ugcPost):\d+)\/?$/.exec(url);
  return match?.[1];
}

export class LinkedinApi {
  constructor(
    private readonly apiUrl: string,
    private readonly accessToken: string,
    private readonly version: string,
    private readonly target: Target,
    /** The clock a 429 is measured by: LinkedIn's limits reset at 00:00 UTC. */
    private readonly now: () => number,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: "application/json",
      authorization: `Bearer ${this.accessToken}`,
      "linkedin-version": this.version,
      "x-restli-protocol-version": "2.0.0",
      ...extra,
    };
  }

  /**
   * A refusal in LinkedIn's words. A 429 waits until the next 00:00 UTC: LinkedIn's limits are
   * per day and "reset at midnight UTC every day" (learn.microsoft.com/linkedin/shared/api-guide/
   * concepts/rate-limits), and the answer says no more.
   */
  private async refused(response: Response): Promise<SyndicationError> {
    const error = await refusal(this.target, response, linkedinMessage);
    if (response.status !== 429) return error;
    return new SyndicationError(`${error.message} (LinkedIn's daily limit: tried again after 00:00 UTC)`, {
      status: 429,
      permanent: false,
      retryAfterSeconds: secondsUntilNextUtcMidnight(this.now()),
      ...(error.code ? { code: error.code } : {}),
    });
  }

  private async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await send(this.target, `${this.apiUrl}${path}`, {
      method,
      headers: this.headers(
        body === undefined ? headers : { "content-type": "application/json", ...headers },
      ),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return response;
  }

  /** Checks the token without posting anything: GET /v2/userinfo answers 200 with the member. */
  async userinfo(): Promise<{ sub: string }> {
    const response = await this.call("GET", "/v2/userinfo");
    if (!response.ok) throw await this.refused(response);
    return readJson(this.target, response, z.object({ sub: z.string().min(1) }), "the userinfo request");
  }

  /**
   * Uploads a picture: POST /rest/images?action=initializeUpload names the owner and answers an
   * upload URL and the image's URN; the bytes are then PUT to that URL (201).
   */
  async uploadImage(owner: string, photo: FetchedPhoto): Promise<string> {
    const response = await this.call("POST", "/rest/images?action=initializeUpload", {
      initializeUploadRequest: { owner },
    });
    if (!response.ok) throw await this.refused(response);
    const { value } = await readJson(
      this.target,
      response,
      initializeUploadSchema,
      "the image upload request",
    );
    // The token goes only where the API itself is (or to LinkedIn's own upload hosts).
    const uploadOrigin = new URL(value.uploadUrl);
    const trusted =
      uploadOrigin.origin === new URL(this.apiUrl).origin ||
      (uploadOrigin.protocol === "https:" && /(^|\.)linkedin\.com$/.test(uploadOrigin.hostname));
    const put = await send(this.target, value.uploadUrl, {
      method: "PUT",
      headers: {
        "content-type": photo.mimeType,
        ...(trusted ? { authorization: `Bearer ${this.accessToken}` } : {}),
      },
      body: photo.bytes,
    });
    if (!put.ok) throw await this.refused(put);
    await put.body?.cancel().catch(() => {});
    return value.image;
  }

  /**
   * Creates a post: POST /rest/posts answers 201 with the post's URN in `x-restli-id` and no body.
   * A 201 without it leaves the post made and unnamed: that outcome is unknown, not a failure to
   * resend.
   */
  async createPost(post: PostBody): Promise<string> {
    const response = await this.call("POST", "/rest/posts", {
      author: post.author,
      commentary: post.commentary,
      visibility: post.visibility,
      distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
      ...(post.article ? { content: { article: post.article } } : {}),
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false,
    });
    if (!response.ok) throw await this.refused(response);
    await response.body?.cancel().catch(() => {});
    const urn = response.headers.get("x-restli-id");
    if (!urn || !/^urn:li:(share|ugcPost):\d+$/.test(urn))
      throw new SyndicationError(
        `LinkedIn: answered ${response.status} without the new post's URN (x-restli-id); the post may exist`,
        { status: response.status, permanent: false, uncertain: true },
      );
    return urn;
  }

  /** Changes the commentary only: POST /rest/posts/{urn} with X-RestLi-Method: PARTIAL_UPDATE (204). */
  async updateCommentary(urn: string, commentary: string): Promise<void> {
    const response = await this.call(
      "POST",
      `/rest/posts/${encodeURIComponent(urn)}`,
      { patch: { $set: { commentary } } },
      { "x-restli-method": "PARTIAL_UPDATE" },
    );
    if (!response.ok) throw await this.refused(response);
    await response.body?.cancel().catch(() => {});
  }

  /** DELETE /rest/posts/{urn} (204); one already gone (404) counts as deleted. */
  async deletePost(urn: string): Promise<void> {
    const response = await this.call("DELETE", `/rest/posts/${encodeURIComponent(urn)}`, undefined, {
      "x-restli-method": "DELETE",
    });
    if (response.status === 404 || response.status === 410) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    if (!response.ok) throw await this.refused(response);
    await response.body?.cancel().catch(() => {});
  }
}
