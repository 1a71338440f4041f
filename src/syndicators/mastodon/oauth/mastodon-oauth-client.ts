// possekit as an OAuth client of a Mastodon instance (or any server speaking Mastodon's API): reads
// the instance's OAuth metadata, registers an application, builds the authorize URL with PKCE,
// exchanges the code, checks the account and revokes the token. The protocol (PKCE, the token and
// revocation requests and their answers, RFC 8414's issuer check) is oauth4webapi's; Mastodon's own
// parts (POST /api/v1/apps, /api/v1/instance, verify_credentials) are here. Every request goes
// through safeFetch: the instance is a name the owner typed, so it is fetched under the
// private-address rules, and a request carrying a credential never follows a redirect.
import * as oauth from "oauth4webapi";
import { z } from "zod";
import { isPrivateAddress } from "../../../net/private-addresses.ts";
import {
  OutgoingFetchError,
  type OutgoingFetchPolicy,
  type SafeFetchOptions,
  safeFetch,
} from "../../../net/safe-fetch.ts";
import { detectSoftware, type MastodonSoftware } from "../mastodon-software.ts";
import { chooseScopes } from "./mastodon-oauth-scopes.ts";

/** Doorkeeper's native redirect: the instance shows the code for the owner to paste. */
export const OUT_OF_BAND_REDIRECT_URI = "urn:ietf:wg:oauth:2.0:oob";

export type MastodonOAuthFailure =
  /** The instance could not be reached, refused (private address), or answered nothing usable. */
  | "unreachable"
  /** The address does not answer as a Mastodon-compatible server. */
  | "not-mastodon"
  /** Plain http on a public address: a token would cross the internet in clear. */
  | "insecure"
  /** The instance does not know the application (deleted, or vacuumed before Mastodon 4.3). */
  | "invalid-client"
  /** The code is wrong, used, expired, or was issued for another verifier or redirect URI. */
  | "invalid-grant"
  /** The owner pressed Deny, or the instance refused the request. */
  | "denied"
  /** The instance answered, but not as its API says. */
  | "invalid-answer";

export class MastodonOAuthError extends Error {
  constructor(
    readonly kind: MastodonOAuthFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "MastodonOAuthError";
  }
}

/** What possekit knows of an instance's OAuth server. */
export interface InstanceOAuth {
  /** e.g. https://mastodon.social */
  origin: string;
  server: oauth.AuthorizationServer;
  /** Where POST /api/v1/apps is. */
  registrationEndpoint: string;
  /** The scopes to register and ask for: the narrowest that cover what a copy needs. */
  scopes: string[];
  /** Whether the instance lists S256 (Mastodon 4.3+): the authorize request then carries PKCE. */
  pkce: boolean;
  /** The server software speaking Mastodon's API there (absent in a state saved before it was read). */
  software?: MastodonSoftware;
}

export interface RegisteredApp {
  clientId: string;
  clientSecret: string;
}

export interface ConnectedAccount {
  /** The token's account, e.g. "alice". */
  username: string;
  /** @alice@example.social */
  handle: string;
  /** The account's profile page. */
  url: string;
  displayName: string;
}

export interface MastodonOAuthClientOptions {
  policy: OutgoingFetchPolicy;
  /** For each request; 15 s unless given. */
  timeoutMs?: number;
  /** The application's name and website, shown on the instance's authorize page. */
  clientName?: string;
  website?: string;
}

const maxAnswerBytes = 256 * 1024;

const appSchema = z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) });
const instanceSchema = z.object({ uri: z.string().min(1) });
const accountSchema = z.object({
  username: z.string().min(1),
  acct: z.string().min(1),
  url: z.string().nullish(),
  display_name: z.string().nullish(),
});

export class MastodonOAuthClient {
  constructor(private readonly options: MastodonOAuthClientOptions) {}

  private fetchOptions(extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
    return {
      policy: this.options.policy,
      maxBytes: maxAnswerBytes,
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      ...extra,
    };
  }

  /** oauth4webapi's requests, made by safeFetch and never redirected. */
  private libraryOptions(origin: string) {
    const fetchFor = async (url: string, init: oauth.CustomFetchOptions<string, unknown>) => {
      const headers: Record<string, string> = {};
      new Headers(init.headers as HeadersInit).forEach((value, key) => {
        headers[key] = value;
      });
      const body = init.body === undefined || init.body === null ? undefined : String(init.body);
      const answer = await this.fetch(url, {
        method: init.method === "POST" ? "POST" : "GET",
        headers,
        maxRedirects: 0,
        ...(body === undefined ? {} : { body }),
      });
      return new Response(answer.status === 204 ? null : answer.body, {
        status: answer.status,
        headers: answer.headers,
      });
    };
    return {
      [oauth.customFetch]: fetchFor,
      [oauth.allowInsecureRequests]: new URL(origin).protocol === "http:",
    };
  }

  /** Which server it is (NodeInfo, /api/v1/instance): an answer that cannot be read names none. */
  detectSoftware(origin: string): Promise<MastodonSoftware> {
    return detectSoftware(origin, async (url) => {
      try {
        const answer = await this.fetch(url, { headers: { accept: "application/json" }, maxRedirects: 0 });
        return answer.ok ? parseJson(answer.body) : undefined;
      } catch {
        return undefined;
      }
    });
  }

  private async fetch(url: string, extra: Partial<SafeFetchOptions>) {
    try {
      return await safeFetch(url, this.fetchOptions(extra));
    } catch (error) {
      if (error instanceof OutgoingFetchError) {
        const why =
          error.kind === "refused"
            ? "it is on a private address (set fetch.allowPrivate for an instance on your own network)"
            : error.kind === "timeout"
              ? "it did not answer in time"
              : error.kind === "too-many-redirects"
                ? "it answered with a redirect"
                : "it could not be reached";
        throw new MastodonOAuthError("unreachable", `${new URL(url).origin}: ${why}`, { cause: error });
      }
      throw error;
    }
  }

  /**
   * What the instance's OAuth server offers: /.well-known/oauth-authorization-server (Mastodon
   * 4.3+), else the endpoints every Mastodon has, once /api/v1/instance shows it is one.
   */
  async discover(origin: string): Promise<InstanceOAuth> {
    const url = new URL(origin);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (url.protocol === "http:" && !this.options.policy.allowPrivate && !isLoopback(host))
      throw new MastodonOAuthError(
        "insecure",
        `${origin}: possekit connects to an instance over https only (http is for one on this machine or, with fetch.allowPrivate, your own network)`,
      );
    const response = await oauth.discoveryRequest(url, {
      algorithm: "oauth2",
      ...this.libraryOptions(origin),
    });
    if (response.status === 404) return this.discoverWithoutMetadata(url.origin);
    const software = await this.detectSoftware(url.origin);
    let server: oauth.AuthorizationServer;
    try {
      server = await oauth.processDiscoveryResponse(url, response);
    } catch (error) {
      throw new MastodonOAuthError(
        "not-mastodon",
        `${url.origin}: its OAuth metadata is not usable (${describe(error)})`,
        { cause: error },
      );
    }
    if (!server.authorization_endpoint || !server.token_endpoint)
      throw new MastodonOAuthError(
        "not-mastodon",
        `${url.origin}: its OAuth metadata names no authorize or token endpoint`,
      );
    // The client's secret and the token go only to the instance itself, and the browser is sent
    // only to its pages: an endpoint elsewhere (or a javascript: URL) is not followed.
    const endpoints = [server.authorization_endpoint, server.token_endpoint, server.revocation_endpoint];
    const elsewhere = endpoints.filter(
      (endpoint) => endpoint !== undefined && sameOrigin(endpoint, url.origin) === undefined,
    );
    if (elsewhere.length > 0)
      throw new MastodonOAuthError(
        "not-mastodon",
        `${url.origin}: its OAuth metadata names endpoints on another site (${elsewhere.join(", ").slice(0, 200)})`,
      );
    const registration = (server as { app_registration_endpoint?: unknown }).app_registration_endpoint;
    return {
      origin: url.origin,
      server,
      registrationEndpoint: sameOrigin(registration, url.origin) ?? `${url.origin}/api/v1/apps`,
      scopes: chooseScopes(server.scopes_supported, software),
      pkce: server.code_challenge_methods_supported?.includes("S256") ?? false,
      software,
    };
  }

  private async discoverWithoutMetadata(origin: string): Promise<InstanceOAuth> {
    const answer = await this.fetch(`${origin}/api/v1/instance`, {
      headers: { accept: "application/json" },
      maxRedirects: 0,
    });
    const parsed = answer.ok ? instanceSchema.safeParse(parseJson(answer.body)) : undefined;
    if (!parsed?.success)
      throw new MastodonOAuthError(
        "not-mastodon",
        `${origin}: does not answer as a Mastodon server (/api/v1/instance: ${answer.status})`,
      );
    const software = await this.detectSoftware(origin);
    return {
      origin,
      server: {
        issuer: `${origin}/`,
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: `${origin}/oauth/token`,
        revocation_endpoint: `${origin}/oauth/revoke`,
      },
      registrationEndpoint: `${origin}/api/v1/apps`,
      scopes: chooseScopes(undefined, software),
      pkce: false,
      software,
    };
  }

  /** POST /api/v1/apps: a confidential client for this redirect URI and these scopes. */
  async registerApp(instance: InstanceOAuth, redirectUri: string): Promise<RegisteredApp> {
    const body = new URLSearchParams({
      client_name: this.options.clientName ?? "possekit",
      redirect_uris: redirectUri,
      scopes: instance.scopes.join(" "),
    });
    if (this.options.website) body.set("website", this.options.website);
    const answer = await this.fetch(instance.registrationEndpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: body.toString(),
    });
    const parsed = answer.ok ? appSchema.safeParse(parseJson(answer.body)) : undefined;
    if (!parsed?.success) {
      const said = errorOf(answer.body);
      throw new MastodonOAuthError(
        answer.ok ? "invalid-answer" : "not-mastodon",
        `${instance.origin}: the application could not be registered (${answer.status}${said ? `: ${said}` : ""})`,
      );
    }
    return { clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret };
  }

  /**
   * Whether the instance still knows a registered application: a client_credentials token (the
   * check Mastodon's documentation suggests, methods/apps), revoked at once. false only for
   * invalid_client; any other failure is thrown.
   */
  async appIsKnown(instance: InstanceOAuth, app: RegisteredApp): Promise<boolean> {
    const client: oauth.Client = { client_id: app.clientId };
    const auth = oauth.ClientSecretPost(app.clientSecret);
    const library = this.libraryOptions(instance.origin);
    let token: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.clientCredentialsGrantRequest(
        instance.server,
        client,
        auth,
        { scope: instance.scopes.join(" ") },
        library,
      );
      token = await oauth.processClientCredentialsResponse(instance.server, client, response);
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError && error.error === "invalid_client") return false;
      throw this.failure(instance, error, "the application check");
    }
    await this.revoke(instance, app, token.access_token).catch(() => {});
    return true;
  }

  /** The authorize page's URL; `codeChallenge` only when the instance lists S256. */
  authorizeUrl(
    instance: InstanceOAuth,
    app: RegisteredApp,
    fields: { redirectUri: string; state?: string; codeChallenge?: string; lang?: string },
  ): URL {
    const url = new URL(instance.server.authorization_endpoint ?? `${instance.origin}/oauth/authorize`);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", app.clientId);
    url.searchParams.set("redirect_uri", fields.redirectUri);
    url.searchParams.set("scope", instance.scopes.join(" "));
    if (fields.state) url.searchParams.set("state", fields.state);
    if (instance.pkce && fields.codeChallenge) {
      url.searchParams.set("code_challenge", fields.codeChallenge);
      url.searchParams.set("code_challenge_method", "S256");
    }
    if (fields.lang) url.searchParams.set("lang", fields.lang);
    return url;
  }

  /**
   * The authorize page's answer as it came back to the callback (code, or error=access_denied),
   * the state already checked by the caller.
   */
  codeFrom(instance: InstanceOAuth, app: RegisteredApp, callback: URLSearchParams): URLSearchParams {
    try {
      return oauth.validateAuthResponse(
        instance.server,
        { client_id: app.clientId },
        callback,
        oauth.skipStateCheck,
      );
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError)
        throw new MastodonOAuthError(
          "denied",
          `${instance.origin}: ${error.error_description ?? error.error}`,
          {
            cause: error,
          },
        );
      throw new MastodonOAuthError(
        "invalid-answer",
        `${instance.origin}: the authorization answer is not usable`,
        {
          cause: error,
        },
      );
    }
  }

  /** POST /oauth/token with the code and, when PKCE was used, its verifier. */
  async exchangeCode(
    instance: InstanceOAuth,
    app: RegisteredApp,
    fields: { callback: URLSearchParams; redirectUri: string; codeVerifier?: string },
  ): Promise<{ accessToken: string; scope: string }> {
    const client: oauth.Client = { client_id: app.clientId };
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        instance.server,
        client,
        oauth.ClientSecretPost(app.clientSecret),
        fields.callback,
        fields.redirectUri,
        fields.codeVerifier ?? oauth.nopkce,
        this.libraryOptions(instance.origin),
      );
      const token = await oauth.processAuthorizationCodeResponse(instance.server, client, response);
      return { accessToken: token.access_token, scope: token.scope ?? instance.scopes.join(" ") };
    } catch (error) {
      throw this.failure(instance, error, "the code exchange");
    }
  }

  /** GET /api/v1/accounts/verify_credentials: whose token it is. */
  async verifyCredentials(instance: InstanceOAuth, accessToken: string): Promise<ConnectedAccount> {
    const answer = await this.fetch(`${instance.origin}/api/v1/accounts/verify_credentials`, {
      headers: { accept: "application/json", authorization: `Bearer ${accessToken}` },
      maxRedirects: 0,
    });
    const parsed = answer.ok ? accountSchema.safeParse(parseJson(answer.body)) : undefined;
    if (!parsed?.success)
      throw new MastodonOAuthError(
        answer.status === 401 || answer.status === 403 ? "invalid-grant" : "invalid-answer",
        `${instance.origin}: the new token's account could not be read (${answer.status})`,
      );
    const host = new URL(instance.origin).host;
    const { username, acct, url, display_name } = parsed.data;
    return {
      username,
      handle: `@${acct.includes("@") ? acct : `${acct}@${host}`}`,
      url: url ?? `${instance.origin}/@${username}`,
      displayName: display_name || username,
    };
  }

  /** POST /oauth/revoke: the token stops working; a token already gone counts as revoked. */
  async revoke(instance: InstanceOAuth, app: RegisteredApp, accessToken: string): Promise<void> {
    const server = instance.server.revocation_endpoint
      ? instance.server
      : { ...instance.server, revocation_endpoint: `${instance.origin}/oauth/revoke` };
    const client: oauth.Client = { client_id: app.clientId };
    try {
      const response = await oauth.revocationRequest(
        server,
        client,
        oauth.ClientSecretPost(app.clientSecret),
        accessToken,
        this.libraryOptions(instance.origin),
      );
      await oauth.processRevocationResponse(response);
    } catch (error) {
      throw this.failure(instance, error, "revoking the token");
    }
  }

  private failure(instance: InstanceOAuth, error: unknown, what: string): Error {
    if (error instanceof MastodonOAuthError) return error;
    if (error instanceof oauth.ResponseBodyError) {
      const kind: MastodonOAuthFailure =
        error.error === "invalid_client"
          ? "invalid-client"
          : error.error === "invalid_grant"
            ? "invalid-grant"
            : "denied";
      return new MastodonOAuthError(kind, `${instance.origin}: ${what} was refused (${error.error})`, {
        cause: error,
      });
    }
    return new MastodonOAuthError(
      "invalid-answer",
      `${instance.origin}: ${what} failed (${describe(error)})`,
      {
        cause: error,
      },
    );
  }
}

/** PKCE's verifier and its S256 challenge (RFC 7636), from oauth4webapi. */
export async function newPkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/** A state value: 32 random bytes, base64url. */
export const newState = (): string => oauth.generateRandomState();

function isLoopback(host: string): boolean {
  return host === "localhost" || (isPrivateAddress(host) && (/^127\./.test(host) || host === "::1"));
}

function sameOrigin(value: unknown, origin: string): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return new URL(value).origin === origin ? value : undefined;
  } catch {
    return undefined;
  }
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}

function errorOf(body: Uint8Array): string | undefined {
  const parsed = z.object({ error: z.string() }).safeParse(parseJson(body));
  return parsed.success ? parsed.data.error.slice(0, 200) : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
