// A local stand-in for Meta's Threads API (graph.threads.net) and its Authorization Window
// (threads.net/oauth/authorize), for the tests and the demo: no real Threads server can run here.
// Each behaviour follows Meta's documentation, cited where it is implemented:
//   [auth]    developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
//   [long]    developers.facebook.com/docs/threads/get-started/long-lived-tokens
//   [posts]   developers.facebook.com/docs/threads/posts
//   [ref]     developers.facebook.com/documentation/threads/reference/publishing
//   [trouble] developers.facebook.com/documentation/threads/troubleshooting
//   [limits]  developers.facebook.com/docs/threads/overview (Rate limiting, Posts)
//   [delete]  developers.facebook.com/docs/threads/posts/delete-posts
//   [errors]  developers.facebook.com/docs/graph-api/guides/error-handling
// It keeps what it receives for inspection and can be told to lose an answer. It listens on a
// loopback port only.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { escapeHtml, listen, readBody, sameSecret, sendHtml, sendJson } from "./http-kit.ts";

export interface ThreadsSandboxOptions {
  port?: number;
  /** The Threads app id and secret the owner's Meta app has. */
  appId: string;
  appSecret: string;
  /** The one account that authorizes: its user id and handle. */
  userId?: string;
  username?: string;
  /** The sandbox's clock (token ages and expiries, the 24-hour quotas); Date.now unless given. */
  now?: () => number;
}

export interface ThreadsSandboxToken {
  token: string;
  kind: "short" | "long";
  userId: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
}

export interface ThreadsSandboxContainer {
  id: string;
  userId: string;
  mediaType: string;
  text: string;
  imageUrl?: string;
  linkAttachment?: string;
  status: "FINISHED" | "PUBLISHED" | "ERROR" | "EXPIRED";
  mediaId?: string;
  createdAt: number;
}

export interface ThreadsSandboxPost {
  id: string;
  userId: string;
  text: string;
  mediaType: string;
  imageUrl?: string;
  linkAttachment?: string;
  permalink: string;
  publishedAt: number;
}

export interface ThreadsSandboxRequest {
  method: string;
  path: string;
  query: Record<string, string>;
}

export interface ThreadsSandbox {
  url: string;
  /** The API's base as a client names it: {url}/v1.0 */
  apiUrl: string;
  authorizeUrl: string;
  /** The redirect URIs the app's settings list ("Valid OAuth Redirect URIs") [auth]. */
  redirectUris: string[];
  tokens: ThreadsSandboxToken[];
  containers: ThreadsSandboxContainer[];
  posts: ThreadsSandboxPost[];
  deleted: string[];
  requests: ThreadsSandboxRequest[];
  /** The next threads_publish publishes, then the connection is cut before any answer. */
  dropNextPublishAnswer: boolean;
  /** Containers with a link_attachment are refused, as when the link cannot be scraped [errors: 1609005]. */
  refuseLinkAttachments: boolean;
  /** Every refresh_access_token is refused (the permission was withdrawn, say). */
  refuseRefresh: boolean;
  /** A long-lived token for the account, as if it had been through the Authorization Window. */
  issueLongLivedToken(scopes?: string[]): string;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;
/** [long]: a long-lived token lasts 60 days; [auth]: a short-lived one an hour. */
const LONG_LIVED_SECONDS = 60 * 86_400;
const SHORT_LIVED_SECONDS = 3600;
/** [limits]: 250 API-published posts per 24-hour moving period. [delete]: 100 deletes per day. */
const PUBLISH_QUOTA = 250;
const DELETE_QUOTA = 100;
/** [posts] Limitations: text posts are limited to 500 characters. */
const TEXT_LIMIT = 500;

interface GraphError {
  message: string;
  type: string;
  code: number;
  error_subcode?: number;
}

/** [errors]: every failure is {"error":{message,type,code,error_subcode,fbtrace_id}}. */
function sendGraphError(response: ServerResponse, status: number, error: GraphError): void {
  const body = { error: { ...error, fbtrace_id: randomBytes(8).toString("base64url") } };
  // Graph answers an OAuth refusal with a WWW-Authenticate header naming the error (RFC 6750).
  const headers: Record<string, string> =
    error.type === "OAuthException" && error.code === 190
      ? { "www-authenticate": `OAuth "Facebook Platform" "invalid_token" "${error.message}"` }
      : {};
  sendJson(response, status, body, headers);
}

const invalidToken = (response: ServerResponse) =>
  // [errors] code 190: the access token has expired, been revoked or is invalid.
  sendGraphError(response, 400, {
    message: "Invalid OAuth access token - Cannot parse access token",
    type: "OAuthException",
    code: 190,
  });

const missingPermission = (response: ServerResponse, permission: string) =>
  // [errors] code 10: permission not granted or removed.
  sendGraphError(response, 403, {
    message: `(#10) Application does not have permission for this action (${permission})`,
    type: "OAuthException",
    code: 10,
  });

const invalidParameter = (response: ServerResponse, message: string, subcode?: number) =>
  // [errors] code 100: invalid parameter.
  sendGraphError(response, 400, {
    message,
    type: "OAuthException",
    code: 100,
    ...(subcode ? { error_subcode: subcode } : {}),
  });

let counter = 17_841_000_000_000_000n;
const nextId = () => {
  counter += 1n;
  return counter.toString();
};

export async function startThreadsSandbox(options: ThreadsSandboxOptions): Promise<ThreadsSandbox> {
  const now = options.now ?? Date.now;
  const userId = options.userId ?? "17841400000000001";
  const username = options.username ?? "alice";
  const codes = new Map<
    string,
    { redirectUri: string; scopes: string[]; expiresAt: number; used: boolean }
  >();
  const deletions: number[] = [];
  /** When each post was published: a deleted post still counts against the day's quota. */
  const publications: number[] = [];
  let base = "";

  const sandbox: Omit<ThreadsSandbox, "url" | "apiUrl" | "authorizeUrl" | "close" | "issueLongLivedToken"> = {
    redirectUris: [],
    tokens: [],
    containers: [],
    posts: [],
    deleted: [],
    requests: [],
    dropNextPublishAnswer: false,
    refuseLinkAttachments: false,
    refuseRefresh: false,
  };

  const issue = (kind: "short" | "long", scopes: string[]): ThreadsSandboxToken => {
    const token: ThreadsSandboxToken = {
      token: `TH${kind === "long" ? "L" : "S"}${randomBytes(24).toString("base64url")}`,
      kind,
      userId,
      scopes,
      issuedAt: now(),
      expiresAt: now() + (kind === "long" ? LONG_LIVED_SECONDS : SHORT_LIVED_SECONDS) * 1000,
    };
    sandbox.tokens.push(token);
    return token;
  };

  const tokenOf = (presented: string | undefined): ThreadsSandboxToken | undefined => {
    if (!presented) return undefined;
    const found = sandbox.tokens.find((candidate) => sameSecret(presented, candidate.token));
    return found && found.expiresAt > now() ? found : undefined;
  };

  /** [ref]: access_token is a parameter; Graph also takes "Authorization: Bearer". */
  const presentedToken = (request: IncomingMessage, params: URLSearchParams) =>
    params.get("access_token") ?? /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "")?.[1];

  /** [trouble]: EXPIRED — the container was not published within 24 hours. */
  const expire = (container: ThreadsSandboxContainer) => {
    if (container.status === "FINISHED" && now() - container.createdAt > DAY_MS) container.status = "EXPIRED";
    return container;
  };

  const publishedInLastDay = () => publications.filter((at) => at > now() - DAY_MS).length;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", base);
    const method = request.method ?? "GET";
    const body = method === "POST" ? (await readBody(request, 64 * 1024)).toString("utf8") : "";
    // [ref]: parameters go in the query string or in a form body.
    const params = new URLSearchParams(url.search);
    for (const [key, value] of new URLSearchParams(body)) params.set(key, value);
    sandbox.requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries([...params].filter(([key]) => key !== "access_token")),
    });

    // --- The Authorization Window [auth] ---
    if (url.pathname === "/oauth/authorize" && method === "GET") {
      if (params.get("client_id") !== options.appId)
        return invalidParameter(response, "Invalid app ID", 1349048);
      const redirectUri = params.get("redirect_uri") ?? "";
      // [auth]: redirect_uri must exactly match one of the app's valid OAuth redirect URIs.
      if (!sandbox.redirectUris.includes(redirectUri))
        return invalidParameter(
          response,
          "Invalid redirect_uri: it is not among the app's valid OAuth Redirect URIs",
        );
      if (params.get("response_type") !== "code")
        return invalidParameter(response, "response_type must be code");
      const fields = ["client_id", "redirect_uri", "scope", "response_type", "state"]
        .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name) ?? "")}">`)
        .join("");
      return sendHtml(
        response,
        200,
        `<!doctype html><title>Threads</title><form method="post" action="/oauth/authorize">${fields}
<p>Allow ${escapeHtml(params.get("client_id") ?? "")} to access @${escapeHtml(username)}: ${escapeHtml(params.get("scope") ?? "")}</p>
<button name="decision" value="allow">Allow</button><button name="decision" value="deny">Cancel</button></form>`,
      );
    }
    if (url.pathname === "/oauth/authorize" && method === "POST") {
      const redirectUri = params.get("redirect_uri") ?? "";
      if (!sandbox.redirectUris.includes(redirectUri))
        return invalidParameter(response, "Invalid redirect_uri");
      const target = new URL(redirectUri);
      const state = params.get("state");
      if (params.get("decision") !== "allow") {
        // [auth]: a denial comes back with error=access_denied&error_reason=user_denied.
        target.searchParams.set("error", "access_denied");
        target.searchParams.set("error_reason", "user_denied");
        target.searchParams.set("error_description", "Permissions error");
      } else {
        const code = randomBytes(24).toString("base64url");
        // [auth]: the scope is a comma-separated list of permissions; codes are valid for one hour.
        codes.set(code, {
          redirectUri,
          scopes: (params.get("scope") ?? "").split(/[,\s]+/).filter(Boolean),
          expiresAt: now() + 3600_000,
          used: false,
        });
        target.searchParams.set("code", code);
      }
      if (state) target.searchParams.set("state", state);
      // [auth]: "#_" is appended to the end of the redirect URI.
      response.writeHead(302, { location: `${target.href}#_` });
      response.end();
      return;
    }

    // --- Tokens [auth], [long] ---
    if (url.pathname === "/oauth/access_token" && method === "POST") {
      const code = codes.get(params.get("code") ?? "");
      if (
        params.get("client_id") !== options.appId ||
        !sameSecret(params.get("client_secret") ?? "", options.appSecret)
      )
        return sendGraphError(response, 400, {
          message: "Error validating client secret.",
          type: "OAuthException",
          code: 1,
        });
      if (params.get("grant_type") !== "authorization_code")
        return invalidParameter(response, "Unsupported grant_type");
      if (!code || code.used || code.expiresAt <= now() || code.redirectUri !== params.get("redirect_uri"))
        return invalidParameter(response, "Invalid verification code format.", 36007);
      code.used = true;
      const token = issue("short", code.scopes);
      // [auth] Step 2: {"access_token", "user_id"}.
      return sendJson(response, 200, { access_token: token.token, user_id: Number(userId) });
    }
    if (url.pathname === "/access_token" && method === "GET") {
      const short = tokenOf(params.get("access_token") ?? undefined);
      if (params.get("grant_type") !== "th_exchange_token")
        return invalidParameter(response, "Unsupported grant_type");
      if (!sameSecret(params.get("client_secret") ?? "", options.appSecret))
        return sendGraphError(response, 400, {
          message: "Error validating client secret.",
          type: "OAuthException",
          code: 1,
        });
      if (!short) return invalidToken(response);
      const long = issue("long", short.scopes);
      // [long]: {"access_token", "token_type": "bearer", "expires_in": seconds}.
      return sendJson(response, 200, {
        access_token: long.token,
        token_type: "bearer",
        expires_in: LONG_LIVED_SECONDS,
      });
    }
    if (url.pathname === "/refresh_access_token" && method === "GET") {
      if (params.get("grant_type") !== "th_refresh_token")
        return invalidParameter(response, "Unsupported grant_type");
      const long = tokenOf(params.get("access_token") ?? undefined);
      if (long?.kind !== "long") return invalidToken(response);
      if (sandbox.refuseRefresh)
        return sendGraphError(response, 400, {
          message: "Error validating access token: The user has not authorized application.",
          type: "OAuthException",
          code: 190,
          error_subcode: 458,
        });
      // [long]: a token can be refreshed once it is at least 24 hours old and not expired.
      if (now() - long.issuedAt < DAY_MS)
        return invalidParameter(response, "Long-lived access tokens can be refreshed only after 24 hours");
      const fresh = issue("long", long.scopes);
      return sendJson(response, 200, {
        access_token: fresh.token,
        token_type: "bearer",
        expires_in: LONG_LIVED_SECONDS,
      });
    }

    // --- The Graph API, under its version ---
    const match = /^\/v1\.0\/([^/]+)(?:\/([a-z_]+))?$/.exec(url.pathname);
    if (!match)
      return sendGraphError(response, 404, {
        message: "Unknown path components",
        type: "OAuthException",
        code: 2500,
      });
    const token = tokenOf(presentedToken(request, params));
    if (!token) return invalidToken(response);
    const [, node = "", edge] = match;
    const owner = node === "me" ? token.userId : node;
    const has = (scope: string) => token.scopes.includes(scope);
    if (!has("threads_basic")) return missingPermission(response, "threads_basic");

    if (!edge && method === "GET" && owner === token.userId) {
      // threads-profiles: GET /me?fields=id,username,threads_profile_picture_url
      return sendJson(response, 200, {
        id: userId,
        username,
        threads_profile_picture_url: `${base}/avatar.png`,
      });
    }
    if (edge === "threads" && method === "POST" && owner === token.userId) {
      if (!has("threads_content_publish")) return missingPermission(response, "threads_content_publish");
      const mediaType = params.get("media_type") ?? "";
      const text = params.get("text") ?? "";
      if (!["TEXT", "IMAGE"].includes(mediaType))
        return invalidParameter(response, "The parameter media_type is invalid");
      if (mediaType === "TEXT" && text === "")
        return invalidParameter(response, "The parameter text is required");
      if (mediaType === "IMAGE" && !params.get("image_url"))
        return invalidParameter(response, "The parameter image_url is required");
      // [posts] Limitations: 500 characters, emoji counted by their UTF-8 bytes.
      if (threadsTextLength(text) > TEXT_LIMIT)
        return invalidParameter(response, "Param text must be at most 500 characters long.");
      const linkAttachment = params.get("link_attachment") ?? undefined;
      // [posts]: link_attachment is for TEXT posts only.
      if (linkAttachment && mediaType !== "TEXT")
        return invalidParameter(response, "link_attachment is for TEXT posts only");
      if (linkAttachment && sandbox.refuseLinkAttachments)
        // [errors] 1609005: error posting link (the link's data could not be fetched).
        return sendGraphError(response, 400, {
          message: "Error posting link: the link could not be fetched",
          type: "OAuthException",
          code: 1609005,
        });
      const container: ThreadsSandboxContainer = {
        id: nextId(),
        userId: owner,
        mediaType,
        text,
        ...(params.get("image_url") ? { imageUrl: params.get("image_url") ?? "" } : {}),
        ...(linkAttachment ? { linkAttachment } : {}),
        status: "FINISHED",
        createdAt: now(),
      };
      sandbox.containers.push(container);
      return sendJson(response, 200, { id: container.id });
    }
    if (edge === "threads_publish" && method === "POST" && owner === token.userId) {
      if (!has("threads_content_publish")) return missingPermission(response, "threads_content_publish");
      const found = sandbox.containers.find((candidate) => candidate.id === params.get("creation_id"));
      const container = found && expire(found);
      if (!container || container.userId !== owner)
        return invalidParameter(response, "The parameter creation_id is invalid", 2207006);
      // [limits]: the 250-post quota is enforced here ([errors] code 4: too many calls).
      if (publishedInLastDay() >= PUBLISH_QUOTA)
        return sendGraphError(response, 400, {
          message: "Application request limit reached",
          type: "OAuthException",
          code: 4,
        });
      // [trouble]: a container is published once; its status then stays PUBLISHED.
      if (container.status !== "FINISHED")
        return invalidParameter(
          response,
          `The media container is ${container.status}, not FINISHED`,
          4279009,
        );
      const post: ThreadsSandboxPost = {
        id: nextId(),
        userId: owner,
        text: container.text,
        mediaType: container.mediaType,
        ...(container.imageUrl ? { imageUrl: container.imageUrl } : {}),
        ...(container.linkAttachment ? { linkAttachment: container.linkAttachment } : {}),
        permalink: `${base}/@${username}/post/${randomBytes(8).toString("base64url")}`,
        publishedAt: now(),
      };
      sandbox.posts.push(post);
      publications.push(now());
      container.status = "PUBLISHED";
      container.mediaId = post.id;
      if (sandbox.dropNextPublishAnswer) {
        sandbox.dropNextPublishAnswer = false;
        request.socket.destroy();
        return;
      }
      return sendJson(response, 200, { id: post.id });
    }
    if (edge === "threads_publishing_limit" && method === "GET" && owner === token.userId) {
      // [limits]: {"data":[{"quota_usage":n,"config":{"quota_total":250,"quota_duration":86400}}]}
      return sendJson(response, 200, {
        data: [
          {
            quota_usage: publishedInLastDay(),
            config: { quota_total: PUBLISH_QUOTA, quota_duration: 86_400 },
            delete_quota_usage: deletions.filter((at) => at > now() - DAY_MS).length,
            delete_config: { quota_total: DELETE_QUOTA, quota_duration: 86_400 },
          },
        ],
      });
    }
    if (edge === "threads" && method === "GET" && owner === token.userId) {
      // threads-media: the user's posts, newest first, with the fields asked for.
      const mine = sandbox.posts
        .filter((post) => post.userId === owner)
        .reverse()
        .slice(0, 100);
      return sendJson(response, 200, {
        data: mine.map((post) => ({ id: post.id, permalink: post.permalink, text: post.text })),
        paging: {},
      });
    }
    if (!edge && method === "GET") {
      const found = sandbox.containers.find((candidate) => candidate.id === node);
      const container = found && expire(found);
      if (container && container.userId === token.userId) {
        // [trouble]: GET /{container-id}?fields=status,id — PUBLISHED once its media is out. The
        // page's example shows a FINISHED container answering its own id; once PUBLISHED, the id
        // answered is the published media object's, which the client then reads the permalink of.
        return sendJson(response, 200, {
          id: container.status === "PUBLISHED" ? container.mediaId : container.id,
          status: container.status,
          ...(container.status === "ERROR" ? { error_message: "UNKNOWN" } : {}),
        });
      }
      const post = sandbox.posts.find((candidate) => candidate.id === node);
      if (post && post.userId === token.userId)
        return sendJson(response, 200, { id: post.id, permalink: post.permalink, text: post.text });
    }
    if (!edge && method === "DELETE") {
      if (!has("threads_delete")) return missingPermission(response, "threads_delete");
      const post = sandbox.posts.find(
        (candidate) => candidate.id === node && candidate.userId === token.userId,
      );
      if (!post)
        return sendGraphError(response, 400, {
          message: `Unsupported delete request. Object with ID '${node}' does not exist`,
          type: "GraphMethodException",
          code: 100,
          error_subcode: 33,
        });
      // [delete]: 100 deletes per day per account.
      if (deletions.filter((at) => at > now() - DAY_MS).length >= DELETE_QUOTA)
        return sendGraphError(response, 400, {
          message: "Application request limit reached",
          type: "OAuthException",
          code: 4,
        });
      deletions.push(now());
      sandbox.posts.splice(sandbox.posts.indexOf(post), 1);
      sandbox.deleted.push(post.id);
      // [delete]: {"success": true, "deleted_id": "…"}
      return sendJson(response, 200, { success: true, deleted_id: post.id });
    }
    return sendGraphError(response, 400, {
      message: `Unsupported ${method.toLowerCase()} request. Object with ID '${node}' does not exist`,
      type: "GraphMethodException",
      code: 100,
      error_subcode: 33,
    });
  }

  const running = await listen(handle, options.port ?? 0);
  base = running.url;
  return Object.assign(sandbox, {
    url: running.url,
    apiUrl: `${running.url}/v1.0`,
    authorizeUrl: `${running.url}/oauth/authorize`,
    issueLongLivedToken: (scopes = ["threads_basic", "threads_content_publish", "threads_delete"]) =>
      issue("long", scopes).token,
    close: running.close,
  });
}

/** [posts] Limitations: characters, with each emoji counted as its UTF-8 bytes. */
export function threadsTextLength(text: string): number {
  let count = 0;
  for (const { segment } of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text))
    count += /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment)
      ? Buffer.byteLength(segment)
      : 1;
  return count;
}
