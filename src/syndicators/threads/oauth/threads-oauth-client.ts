// possekit as an OAuth client of Threads (developers.facebook.com/docs/threads/get-started/
// get-access-tokens-and-permissions): the Authorization Window's URL, the code taken from the
// callback and exchanged (POST /oauth/access_token, a short-lived token for an hour), then the
// short-lived token exchanged for a long-lived one (GET /access_token?grant_type=th_exchange_token,
// 60 days: …/long-lived-tokens), and whose it is (GET /me). The callback's parsing and the code
// grant request are oauth4webapi's; Threads answers the grant without a token_type, so that answer
// is read here. No request follows a redirect: each carries the app secret or a token.
import * as oauth from "oauth4webapi";
import { z } from "zod";
import { ThreadsApi } from "../threads-api.ts";
import type { MetaApp } from "./threads-oauth-store.ts";

/** The permissions a copy needs: read the profile, publish, delete (get-started: Authorization). */
export const THREADS_SCOPES = ["threads_basic", "threads_content_publish", "threads_delete"];
export const THREADS_AUTHORIZE_URL = "https://threads.net/oauth/authorize";

export type ThreadsOAuthFailure = "denied" | "invalid-grant" | "invalid-answer" | "unreachable";

export class ThreadsOAuthError extends Error {
  constructor(
    readonly kind: ThreadsOAuthFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ThreadsOAuthError";
  }
}

export interface ThreadsEndpoints {
  /** The Graph API with its version, e.g. https://graph.threads.net/v1.0 */
  apiUrl: string;
  authorizeUrl: string;
}

export interface ThreadsConnection {
  userId: string;
  username: string;
  photo?: string;
  accessToken: string;
  expiresInSeconds: number;
}

const shortToken = z.object({ access_token: z.string().min(1), user_id: z.union([z.string(), z.number()]) });
const longToken = z.object({ access_token: z.string().min(1), expires_in: z.number().positive() });
const graphError = z.object({ error: z.object({ message: z.string() }) });

async function noRedirectFetch(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new ThreadsOAuthError("unreachable", `${new URL(url).origin} could not be reached`, {
      cause: error,
    });
  }
}

async function answerOf<Schema extends z.ZodType>(response: Response, schema: Schema, what: string) {
  const json: unknown = await response.json().catch(() => undefined);
  const parsed = response.ok ? schema.safeParse(json) : undefined;
  if (parsed?.success) return parsed.data as z.output<Schema>;
  const said = graphError.safeParse(json);
  throw new ThreadsOAuthError(
    response.status === 400 ? "invalid-grant" : "invalid-answer",
    `Threads refused ${what} (${response.status}${said.success ? `: ${said.data.error.message}` : ""})`,
  );
}

export class ThreadsOAuthClient {
  constructor(private readonly endpoints: ThreadsEndpoints) {}

  private get server(): oauth.AuthorizationServer {
    const host = ThreadsApi.hostOf(this.endpoints.apiUrl);
    return {
      issuer: new URL(this.endpoints.authorizeUrl).origin,
      authorization_endpoint: this.endpoints.authorizeUrl,
      token_endpoint: `${host}/oauth/access_token`,
    };
  }

  authorizeUrl(app: MetaApp, redirectUri: string, state: string): URL {
    const url = new URL(this.endpoints.authorizeUrl);
    url.searchParams.set("client_id", app.appId);
    url.searchParams.set("redirect_uri", redirectUri);
    // get-access-tokens-and-permissions: a comma-separated list of permissions.
    url.searchParams.set("scope", THREADS_SCOPES.join(","));
    url.searchParams.set("response_type", "code");
    url.searchParams.set("state", state);
    return url;
  }

  /** The callback's code, the state already checked; "denied" for Cancel on Threads. */
  codeFrom(app: MetaApp, callback: URLSearchParams): URLSearchParams {
    try {
      return oauth.validateAuthResponse(
        this.server,
        { client_id: app.appId },
        callback,
        oauth.skipStateCheck,
      );
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError)
        throw new ThreadsOAuthError("denied", `Threads: ${error.error_description ?? error.error}`, {
          cause: error,
        });
      throw new ThreadsOAuthError("invalid-answer", "Threads: the authorization answer is not usable", {
        cause: error,
      });
    }
  }

  /** Code → short-lived token → long-lived token → the account it is for. */
  async connect(app: MetaApp, callback: URLSearchParams, redirectUri: string): Promise<ThreadsConnection> {
    const insecure = new URL(this.endpoints.apiUrl).protocol === "http:";
    const granted = await oauth.authorizationCodeGrantRequest(
      this.server,
      { client_id: app.appId },
      oauth.ClientSecretPost(app.appSecret),
      this.codeFrom(app, callback),
      redirectUri,
      oauth.nopkce,
      {
        [oauth.customFetch]: (url, init) => noRedirectFetch(url, init as RequestInit),
        [oauth.allowInsecureRequests]: insecure,
      },
    );
    const short = await answerOf(granted, shortToken, "the authorization code");
    const host = ThreadsApi.hostOf(this.endpoints.apiUrl);
    const exchange = new URL(`${host}/access_token`);
    exchange.searchParams.set("grant_type", "th_exchange_token");
    exchange.searchParams.set("client_secret", app.appSecret);
    exchange.searchParams.set("access_token", short.access_token);
    const long = await answerOf(
      await noRedirectFetch(exchange.href, {}),
      longToken,
      "the long-lived token exchange",
    );
    const me = new URL(`${this.endpoints.apiUrl}/me`);
    me.searchParams.set("fields", "id,username,threads_profile_picture_url");
    const profile = await answerOf(
      await noRedirectFetch(me.href, { headers: { authorization: `Bearer ${long.access_token}` } }),
      z.object({
        id: z.union([z.string(), z.number()]).transform(String),
        username: z.string().min(1),
        threads_profile_picture_url: z.string().optional(),
      }),
      "the profile",
    );
    return {
      userId: profile.id,
      username: profile.username,
      ...(profile.threads_profile_picture_url?.startsWith("https://")
        ? { photo: profile.threads_profile_picture_url }
        : {}),
      accessToken: long.access_token,
      expiresInSeconds: long.expires_in,
    };
  }
}
