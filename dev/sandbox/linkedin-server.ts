// A local stand-in for LinkedIn, for the tests and the demo: it answers the parts of LinkedIn's API
// a syndicator and its OAuth connection use, as LinkedIn's documentation says (each behaviour cites
// its page on learn.microsoft.com/linkedin), keeps what it receives for inspection, and can be told
// to answer 429, to drop an answer, or to leave a header out. It listens on a loopback port only.
import { createSign, generateKeyPairSync, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, escapeHtml, listen, readBody, sameSecret, sendHtml, sendJson } from "./http-kit.ts";
import { showLittle } from "./linkedin-little.ts";

export interface LinkedinSandboxOptions {
  /** The member who signs in on the authorize page. */
  member?: { sub: string; name: string };
  /** The owner's developer app, as registered in LinkedIn's developer portal. */
  app?: { clientId: string; clientSecret: string; redirectUris?: string[] };
  /** A token that works without the OAuth dance (the portal's token generator). */
  accessToken?: string;
  /** Seconds an access token lives: 60 days (5 184 000 s), as LinkedIn documents. */
  expiresIn?: number;
  now?: () => number;
  /** Where initializeUpload says to PUT the bytes; this sandbox unless given (another site, in a test). */
  uploadBase?: string;
}

export interface SandboxPost {
  urn: string;
  author: string;
  /** As sent, in the little format. */
  commentary: string;
  /** What a reader sees of it. */
  shown: string;
  /** The commentary was cut at an unescaped reserved character. */
  cut: boolean;
  visibility: string;
  article?: { source: string; title?: string; description?: string; thumbnail?: string };
  /** Every commentary it had before an edit. */
  edits: string[];
  deleted: boolean;
}

export interface SandboxRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface LinkedinSandbox {
  url: string;
  posts: SandboxPost[];
  /** Image URN → the bytes PUT to its upload URL (undefined until then). */
  images: Map<string, Buffer | undefined>;
  requests: SandboxRequest[];
  /** Tokens issued (or given), by value: whose and until when. */
  tokens: Map<string, { sub: string; expiresAt: number; revoked: boolean }>;
  /** The next `times` requests matching `route` ("POST /rest/posts") answer 429. */
  rateLimit(route: string, times?: number): void;
  /** The next create is carried out, and its answer never sent: the connection is cut. */
  dropCreateAnswer(times?: number): void;
  /** The next create answers 201 without x-restli-id. */
  omitRestliId(times?: number): void;
  clearBehaviour(): void;
  close(): Promise<void>;
}

/** LinkedIn's error body (learn.microsoft.com/linkedin/shared/api-guide/concepts/error-handling). */
const restError = (
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  serviceErrorCode = 0,
) => sendJson(response, status, { status, serviceErrorCode, code, message });

/** The access token lifetime for members: 60 days (…/shared/authentication/authorization-code-flow). */
export const SIXTY_DAYS_S = 60 * 24 * 60 * 60;

export async function startLinkedinSandbox(options: LinkedinSandboxOptions = {}): Promise<LinkedinSandbox> {
  const now = options.now ?? Date.now;
  const member = options.member ?? { sub: "AbC123xyz", name: "Ada Lovelace" };
  const app = options.app ?? { clientId: "86example", clientSecret: "app-secret" };
  const expiresIn = options.expiresIn ?? SIXTY_DAYS_S;
  const posts: SandboxPost[] = [];
  const images = new Map<string, Buffer | undefined>();
  const requests: SandboxRequest[] = [];
  const tokens = new Map<string, { sub: string; expiresAt: number; revoked: boolean }>();
  if (options.accessToken)
    tokens.set(options.accessToken, { sub: member.sub, expiresAt: Number.POSITIVE_INFINITY, revoked: false });
  const codes = new Map<string, { redirectUri: string; scope: string; expiresAt: number }>();
  const limited = new Map<string, number>();
  let drops = 0;
  let omissions = 0;
  let nextId = 7_100_000_000_000_000_000n;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  let base = "";

  const idToken = (sub: string) => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const seconds = Math.floor(now() / 1000);
    // LinkedIn's ID token: RS256, iss https://www.linkedin.com/oauth (here: this sandbox's /oauth),
    // aud the client id (…/consumer/integrations/self-serve/sign-in-with-linkedin-v2).
    const head = encode({ alg: "RS256", typ: "JWT", kid: "sandbox" });
    const body = encode({
      iss: `${base}/oauth`,
      aud: app.clientId,
      iat: seconds,
      exp: seconds + 3600,
      sub,
      name: member.name,
    });
    const signature = createSign("RSA-SHA256")
      .update(`${head}.${body}`)
      .sign(privateKey)
      .toString("base64url");
    return `${head}.${body}.${signature}`;
  };

  /** The token's member, or an answer 401 as LinkedIn's (code INVALID_ACCESS_TOKEN, 65600). */
  const memberOf = (request: IncomingMessage, response: ServerResponse): string | undefined => {
    const token = bearerToken(request) ?? "";
    const found = [...tokens.entries()].find(([value]) => sameSecret(token, value))?.[1];
    if (!found || found.revoked) {
      restError(response, 401, "INVALID_ACCESS_TOKEN", "Invalid access token", 65600);
      return undefined;
    }
    if (found.expiresAt <= now()) {
      restError(response, 401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", 65601);
      return undefined;
    }
    return found.sub;
  };

  /**
   * Versioned APIs (/rest) need LinkedIn-Version: "A version must be present" — 400 VERSION_MISSING
   * (learn.microsoft.com/linkedin/marketing/versioning); and Rest.li 2.0.0
   * (X-Restli-Protocol-Version: 2.0.0, …/shared/api-guide/concepts/protocol-version).
   */
  const versioned = (request: IncomingMessage, response: ServerResponse): boolean => {
    const version = String(request.headers["linkedin-version"] ?? "");
    if (!version) {
      restError(
        response,
        400,
        "VERSION_MISSING",
        "A version must be present. Please specify a version by adding the LinkedIn-Version header.",
      );
      return false;
    }
    if (!/^20\d\d(0[1-9]|1[0-2])(\.\d\d)?$/.test(version)) {
      restError(response, 400, "INVALID_VERSION", `Invalid version: ${version}`);
      return false;
    }
    if (request.headers["x-restli-protocol-version"] !== "2.0.0") {
      restError(
        response,
        400,
        "ILLEGAL_ARGUMENT",
        "X-Restli-Protocol-Version 2.0.0 is required for this resource",
      );
      return false;
    }
    return true;
  };

  const running = await listen(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://sandbox");
    const method = request.method ?? "GET";
    const body = await readBody(request, 25 * 1024 * 1024);
    requests.push({
      method,
      path: url.pathname + url.search,
      headers: request.headers,
      body: method === "PUT" ? `<${body.length} bytes>` : body.toString("utf8"),
    });
    const route = `${method} ${url.pathname.replace(/\/rest\/posts\/.+$/, "/rest/posts/:urn")}`;
    const left = limited.get(route) ?? 0;
    if (left > 0) {
      limited.set(route, left - 1);
      // Limits are per day and reset at midnight UTC; a limited call gets 429
      // (learn.microsoft.com/linkedin/shared/api-guide/concepts/rate-limits). No Retry-After is documented.
      restError(
        response,
        429,
        "TOO_MANY_REQUESTS",
        "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
        101,
      );
      return;
    }
    const form = () => new URLSearchParams(body.toString("utf8"));

    // The authorization page (…/shared/authentication/authorization-code-flow, step 2): the member
    // signs in and presses Allow; an unknown client or redirect URI is an error page, not a redirect.
    if (method === "GET" && url.pathname === "/oauth/v2/authorization") {
      const q = url.searchParams;
      if (q.get("client_id") !== app.clientId)
        return sendHtml(
          response,
          400,
          "<h1>Bummer, something went wrong.</h1><p>The passed in client_id is invalid</p>",
        );
      const redirectUri = q.get("redirect_uri") ?? "";
      if (app.redirectUris && !app.redirectUris.includes(redirectUri))
        return sendHtml(
          response,
          400,
          "<h1>Bummer, something went wrong.</h1><p>The redirect_uri does not match the registered value</p>",
        );
      const fields = ["response_type", "client_id", "redirect_uri", "state", "scope"]
        .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(q.get(name) ?? "")}">`)
        .join("");
      return sendHtml(
        response,
        200,
        `<h1>Allow possekit to use your LinkedIn account?</h1><p>${escapeHtml(q.get("scope") ?? "")}</p><form method="post" action="/oauth/v2/authorization">${fields}<button name="decision" value="allow">Allow</button><button name="decision" value="cancel">Cancel</button></form>`,
      );
    }
    if (method === "POST" && url.pathname === "/oauth/v2/authorization") {
      const f = form();
      const back = new URL(f.get("redirect_uri") ?? "");
      const state = f.get("state") ?? "";
      if (f.get("decision") !== "allow") {
        // The member cancelled: error=user_cancelled_authorize with the state.
        back.searchParams.set("error", "user_cancelled_authorize");
        back.searchParams.set("error_description", "The user cancelled the authorization");
      } else {
        const code = randomBytes(24).toString("base64url");
        // Authorization codes live 30 minutes.
        codes.set(code, {
          redirectUri: back.href.split("?")[0] ?? "",
          scope: f.get("scope") ?? "",
          expiresAt: now() + 30 * 60_000,
        });
        back.searchParams.set("code", code);
      }
      back.searchParams.set("state", state);
      response.writeHead(302, { location: back.href });
      response.end();
      return;
    }
    // The token exchange (step 3): client id and secret in the form body; 60-day tokens with no
    // refresh token for apps outside the partner programmes; an ID token with `openid`.
    if (method === "POST" && url.pathname === "/oauth/v2/accessToken") {
      const f = form();
      if (f.get("client_id") !== app.clientId || !sameSecret(f.get("client_secret") ?? "", app.clientSecret))
        return sendJson(response, 401, {
          error: "invalid_client",
          error_description: "Client authentication failed",
        });
      const code = codes.get(f.get("code") ?? "");
      codes.delete(f.get("code") ?? "");
      if (
        f.get("grant_type") !== "authorization_code" ||
        !code ||
        code.expiresAt <= now() ||
        code.redirectUri !== f.get("redirect_uri")
      )
        return sendJson(response, 400, {
          error: "invalid_request",
          error_description:
            "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired.",
        });
      const accessToken = `AQ${randomBytes(32).toString("base64url")}`;
      tokens.set(accessToken, { sub: member.sub, expiresAt: now() + expiresIn * 1000, revoked: false });
      return sendJson(response, 200, {
        access_token: accessToken,
        expires_in: expiresIn,
        scope: code.scope.split(/[ ,]+/).filter(Boolean).join(","),
        token_type: "Bearer",
        ...(code.scope.split(/[ ,]+/).includes("openid") ? { id_token: idToken(member.sub) } : {}),
      });
    }
    // Token revocation: client id, secret and token in the form body; 200 with an empty body.
    if (method === "POST" && url.pathname === "/oauth/v2/revoke") {
      const f = form();
      if (f.get("client_id") !== app.clientId || !sameSecret(f.get("client_secret") ?? "", app.clientSecret))
        return sendJson(response, 401, {
          error: "invalid_client",
          error_description: "Client authentication failed",
        });
      const found = tokens.get(f.get("token") ?? "");
      if (found) found.revoked = true;
      response.writeHead(200, { "content-length": 0 });
      response.end();
      return;
    }
    // OpenID userinfo (…/consumer/integrations/self-serve/sign-in-with-linkedin-v2): sub, name, …
    if (method === "GET" && url.pathname === "/v2/userinfo") {
      const sub = memberOf(request, response);
      if (!sub) return;
      const [given = "", family = ""] = member.name.split(" ");
      return sendJson(response, 200, {
        sub,
        name: member.name,
        given_name: given,
        family_name: family,
        locale: { country: "GB", language: "en" },
      });
    }
    // The picture's bytes, PUT to the upload URL initializeUpload gave: 201 (…/shares/images-api).
    if (method === "PUT" && url.pathname.startsWith("/dms-uploads/")) {
      const urn = `urn:li:image:${url.pathname.slice("/dms-uploads/".length)}`;
      if (!images.has(urn)) return restError(response, 404, "NOT_FOUND", "Not Found");
      images.set(urn, body);
      response.writeHead(201, { "content-length": 0 });
      response.end();
      return;
    }
    if (!url.pathname.startsWith("/rest/")) return restError(response, 404, "NOT_FOUND", "Not Found");
    const sub = memberOf(request, response);
    if (!sub || !versioned(request, response)) return;
    const json = () => {
      try {
        return JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    };

    // Images API initializeUpload: {initializeUploadRequest: {owner}} → 200 with value.uploadUrl,
    // value.image (urn:li:image:…) and value.uploadUrlExpiresAt (…/shares/images-api).
    if (
      method === "POST" &&
      url.pathname === "/rest/images" &&
      url.searchParams.get("action") === "initializeUpload"
    ) {
      const owner = (json()?.initializeUploadRequest as { owner?: string } | undefined)?.owner;
      if (owner !== `urn:li:person:${sub}`)
        return restError(
          response,
          403,
          "ACCESS_DENIED",
          `Not enough permissions to access: owner ${owner}`,
          100,
        );
      const id = `D4D10AQ${randomBytes(9).toString("base64url")}`;
      images.set(`urn:li:image:${id}`, undefined);
      return sendJson(response, 200, {
        value: {
          uploadUrlExpiresAt: now() + 24 * 3600_000,
          uploadUrl: `${options.uploadBase ?? base}/dms-uploads/${id}`,
          image: `urn:li:image:${id}`,
        },
      });
    }

    // Posts API create (…/shares/posts-api): 201 Created, no body, the new post's URN in x-restli-id.
    if (method === "POST" && url.pathname === "/rest/posts") {
      const post = json();
      if (!post) return restError(response, 400, "ILLEGAL_ARGUMENT", "Cannot parse the request body");
      if (post.author !== `urn:li:person:${sub}`)
        return restError(
          response,
          403,
          "ACCESS_DENIED",
          `Not enough permissions to access: author ${String(post.author)}`,
          100,
        );
      const commentary = typeof post.commentary === "string" ? post.commentary : "";
      if ([...commentary].length > 3000)
        return restError(
          response,
          422,
          "UNPROCESSABLE_ENTITY",
          "/commentary :: length of commentary exceeds 3000",
          0,
        );
      const article = (post.content as { article?: SandboxPost["article"] } | undefined)?.article;
      if (article?.thumbnail && images.get(article.thumbnail) === undefined)
        return restError(
          response,
          400,
          "INVALID_CONTENT",
          `The thumbnail ${article.thumbnail} was not uploaded`,
        );
      nextId += 1n;
      const urn = `urn:li:share:${nextId}`;
      const shown = showLittle(commentary);
      posts.push({
        urn,
        author: String(post.author),
        commentary,
        shown: shown.text,
        cut: shown.cut,
        visibility: String(post.visibility),
        ...(article ? { article } : {}),
        edits: [],
        deleted: false,
      });
      if (drops > 0) {
        drops -= 1;
        response.socket?.destroy();
        return;
      }
      const omit = omissions > 0;
      if (omit) omissions -= 1;
      response.writeHead(201, {
        "content-length": 0,
        ...(omit ? {} : { "x-restli-id": urn, "x-linkedin-id": urn }),
      });
      response.end();
      return;
    }
    const postPath = /^\/rest\/posts\/(.+)$/.exec(url.pathname);
    if (postPath) {
      const urn = decodeURIComponent(postPath[1] ?? "");
      const post = posts.find((each) => each.urn === urn && !each.deleted);
      if (!post) return restError(response, 404, "NOT_FOUND", `Post ${urn} does not exist`);
      if (post.author !== `urn:li:person:${sub}`)
        return restError(response, 403, "ACCESS_DENIED", "Not enough permissions to access this post", 100);
      // Deletion: DELETE with X-RestLi-Method: DELETE → 204.
      if (method === "DELETE") {
        post.deleted = true;
        response.writeHead(204);
        response.end();
        return;
      }
      // Update: POST with X-RestLi-Method: PARTIAL_UPDATE and {patch: {$set: {…}}} → 204; the
      // commentary, call to action and a few settings may change, the content may not.
      if (
        method === "POST" &&
        String(request.headers["x-restli-method"]).toUpperCase() === "PARTIAL_UPDATE"
      ) {
        const set = (json()?.patch as { $set?: Record<string, unknown> } | undefined)?.$set;
        if (!set) return restError(response, 400, "ILLEGAL_ARGUMENT", "A patch with $set is required");
        const allowed = new Set([
          "commentary",
          "contentCallToActionLabel",
          "contentLandingPage",
          "lifecycleState",
          "adContext",
        ]);
        const refused = Object.keys(set).filter((key) => !allowed.has(key));
        if (refused.length > 0)
          return restError(
            response,
            422,
            "UNPROCESSABLE_ENTITY",
            `Fields cannot be updated: ${refused.join(", ")}`,
          );
        if (typeof set.commentary === "string") {
          post.edits.push(post.commentary);
          post.commentary = set.commentary;
          const shown = showLittle(set.commentary);
          post.shown = shown.text;
          post.cut = shown.cut;
        }
        response.writeHead(204);
        response.end();
        return;
      }
    }
    restError(response, 404, "NOT_FOUND", "Not Found");
  });
  base = running.url;
  return {
    url: running.url,
    posts,
    images,
    requests,
    tokens,
    rateLimit(route, times = 1) {
      limited.set(route, times);
    },
    dropCreateAnswer(times = 1) {
      drops = times;
    },
    omitRestliId(times = 1) {
      omissions = times;
    },
    clearBehaviour() {
      limited.clear();
      drops = 0;
      omissions = 0;
    },
    close: running.close,
  };
}
