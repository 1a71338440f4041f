// The parts of Meta's Threads API (graph.threads.net) the syndicator uses, each answer checked with
// zod. Graph's errors are {"error":{message,type,code,error_subcode,fbtrace_id}}
// (developers.facebook.com/docs/graph-api/guides/error-handling), mostly with HTTP 400 whatever the
// cause, so the status the core acts on is read from the code: 190 (the token expired or was
// revoked) is a refusal of the credentials (401, the account pauses and asks for a reconnect), 10
// and 200–299 a missing permission (403), 4, 17, 32 and 613 a rate limit (429, tried again later).
import { z } from "zod";
import { SyndicationError } from "../../contract/syndication-error.ts";
import { parseJson, readJson, readText, send, type Target } from "../shared/http.ts";

const graphError = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.number().optional(),
    error_subcode: z.number().optional(),
  }),
});

/** Graph's "Error posting link" (error-handling: 1609005): the link's page could not be read. */
export const LINK_ERROR_CODE = "1609005";

const rateLimitCodes = new Set([4, 17, 32, 613]);

function statusOf(httpStatus: number, code: number | undefined): number {
  if (code === 190 || code === 102) return 401;
  if (code === 10 || (code !== undefined && code >= 200 && code <= 299)) return 403;
  if (code !== undefined && rateLimitCodes.has(code)) return 429;
  return httpStatus;
}

async function refusal(target: Target, response: Response): Promise<SyndicationError> {
  const text = await readText(target, response).catch(() => "");
  const parsed = graphError.safeParse(parseJson(text));
  const error = parsed.success ? parsed.data.error : undefined;
  const status = statusOf(response.status, error?.code);
  const message = error?.message ?? (text.slice(0, 200) || response.statusText);
  return new SyndicationError(`${target.name}: ${status} ${message}`, {
    status,
    permanent: status === 401 || status === 403 || (status >= 400 && status < 500 && status !== 429),
    ...(status === 429 ? { retryAfterSeconds: 3600 } : {}),
    ...(error?.code !== undefined ? { code: String(error.code) } : {}),
  });
}

const idAnswer = z.object({ id: z.union([z.string(), z.number()]).transform(String) });
const containerAnswer = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  status: z.string(),
  error_message: z.string().optional(),
});
const mediaAnswer = z.object({ id: z.string(), permalink: z.string() });
const mediaList = z.object({ data: z.array(z.object({ id: z.string(), permalink: z.string().optional() })) });
const quotaAnswer = z.object({
  data: z.array(
    z.object({
      quota_usage: z.number(),
      config: z.object({ quota_total: z.number(), quota_duration: z.number() }).optional(),
    }),
  ),
});
const tokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.number().optional() });
const profileAnswer = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  username: z.string().min(1),
  threads_profile_picture_url: z.string().optional(),
});

export interface ContainerFields {
  mediaType: "TEXT" | "IMAGE";
  text: string;
  imageUrl?: string;
  altText?: string;
  linkAttachment?: string;
}

export interface PublishingQuota {
  used: number;
  total: number;
  /** The window, in seconds (a day). */
  duration: number;
}

export class ThreadsApi {
  constructor(
    private readonly apiUrl: string,
    private readonly accessToken: string,
    private readonly target: Target,
  ) {}

  /** Token endpoints sit beside the version (graph.threads.net/refresh_access_token). */
  static hostOf(apiUrl: string): string {
    return apiUrl.replace(/\/v\d+(\.\d+)?$/, "");
  }

  private async call(method: "GET" | "POST" | "DELETE", path: string, params: Record<string, string> = {}) {
    const url = new URL(`${this.apiUrl}/${path}`);
    const body = new URLSearchParams(params);
    if (method !== "POST") for (const [key, value] of body) url.searchParams.set(key, value);
    const response = await send(this.target, url.href, {
      method,
      headers: {
        authorization: `Bearer ${this.accessToken}`,
        ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(method === "POST" ? { body: body.toString() } : {}),
    });
    if (!response.ok) throw await refusal(this.target, response);
    return response;
  }

  /** POST /{user-id}/threads: a media container, not yet seen by anyone. */
  async createContainer(userId: string, fields: ContainerFields): Promise<string> {
    const params: Record<string, string> = { media_type: fields.mediaType, text: fields.text };
    if (fields.imageUrl) params.image_url = fields.imageUrl;
    if (fields.altText) params.alt_text = fields.altText;
    if (fields.linkAttachment) params.link_attachment = fields.linkAttachment;
    const response = await this.call("POST", `${userId}/threads`, params);
    return (await readJson(this.target, response, idAnswer, "the container")).id;
  }

  /** POST /{user-id}/threads_publish: the container becomes a post; its media id. */
  async publish(userId: string, containerId: string): Promise<string> {
    const response = await this.call("POST", `${userId}/threads_publish`, { creation_id: containerId });
    return (await readJson(this.target, response, idAnswer, "threads_publish")).id;
  }

  /** GET /{container-id}?fields=status,id (troubleshooting: EXPIRED, ERROR, FINISHED, IN_PROGRESS, PUBLISHED). */
  async containerStatus(containerId: string) {
    const response = await this.call("GET", containerId, { fields: "status,id,error_message" });
    return readJson(this.target, response, containerAnswer, "the container's status");
  }

  async permalink(mediaId: string): Promise<string> {
    const response = await this.call("GET", mediaId, { fields: "id,permalink" });
    return (await readJson(this.target, response, mediaAnswer, "the post")).permalink;
  }

  /** The account's newest posts (threads-media: GET /{user-id}/threads). */
  async recentPosts(userId: string) {
    const response = await this.call("GET", `${userId}/threads`, { fields: "id,permalink", limit: "100" });
    return (await readJson(this.target, response, mediaList, "the account's posts")).data;
  }

  /** DELETE /{media-id} (delete-posts: 100 a day). */
  async deletePost(mediaId: string): Promise<void> {
    await this.call("DELETE", mediaId);
  }

  /** GET /{user-id}/threads_publishing_limit (overview: 250 posts in 24 hours). */
  async publishingQuota(userId: string): Promise<PublishingQuota> {
    const response = await this.call("GET", `${userId}/threads_publishing_limit`, {
      fields: "quota_usage,config",
    });
    const [first] = (await readJson(this.target, response, quotaAnswer, "threads_publishing_limit")).data;
    return {
      used: first?.quota_usage ?? 0,
      total: first?.config?.quota_total ?? 250,
      duration: first?.config?.quota_duration ?? 86_400,
    };
  }

  /** GET /me?fields=id,username,threads_profile_picture_url */
  async profile() {
    const response = await this.call("GET", "me", { fields: "id,username,threads_profile_picture_url" });
    return readJson(this.target, response, profileAnswer, "the profile");
  }

  /**
   * GET /refresh_access_token?grant_type=th_refresh_token (long-lived-tokens: a token at least 24
   * hours old and not expired; the new one lasts 60 days from now).
   */
  async refreshToken(): Promise<{ accessToken: string; expiresInSeconds: number }> {
    const url = new URL(`${ThreadsApi.hostOf(this.apiUrl)}/refresh_access_token`);
    url.searchParams.set("grant_type", "th_refresh_token");
    url.searchParams.set("access_token", this.accessToken);
    // The token is in the query, as the endpoint requires: a redirect would carry it along.
    const response = await send(this.target, url.href, { redirect: "manual" });
    if (!response.ok) throw await refusal(this.target, response);
    const token = await readJson(this.target, response, tokenAnswer, "refresh_access_token");
    return { accessToken: token.access_token, expiresInSeconds: token.expires_in ?? 60 * 86_400 };
  }
}
