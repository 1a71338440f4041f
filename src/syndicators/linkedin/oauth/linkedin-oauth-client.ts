// possekit as an OAuth client of LinkedIn, with the owner's own developer app: the authorize URL,
// the code exchange and whose the token is. The protocol (the token request, its answer and the ID
// token's claims) is oauth4webapi's; LinkedIn's endpoints are fixed
// (learn.microsoft.com/linkedin/shared/authentication/authorization-code-flow): the member allows
// on www.linkedin.com/oauth/v2/authorization, the code is exchanged at …/oauth/v2/accessToken with
// the client id and secret in the form (client_secret_post), and the token lasts 60 days with no
// refresh token for apps outside LinkedIn's partner programmes. Requests go through safeFetch and
// never follow a redirect.
import * as oauth from "oauth4webapi";
import type { ConnectContext } from "../../../contract/accounts.ts";
import { OutgoingFetchError, type OutgoingFetchPolicy, safeFetch } from "../../../net/safe-fetch.ts";
import { type LinkedinMember, linkedinAuthOrigin, linkedinMember } from "../linkedin-account.ts";
import type { LinkedinApp } from "./linkedin-oauth-store.ts";

/** What a copy needs: the member's id (openid, profile) and posting in their name. */
export const LINKEDIN_SCOPES = ["openid", "profile", "w_member_social"];

export type LinkedinOAuthFailure =
  | "unreachable"
  | "invalid-client"
  | "invalid-grant"
  | "denied"
  | "invalid-answer";

export class LinkedinOAuthError extends Error {
  constructor(
    readonly kind: LinkedinOAuthFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LinkedinOAuthError";
  }
}

export interface LinkedinToken {
  accessToken: string;
  /** When it ends, by the clock of the exchange. */
  expiresAt: Date;
  member: LinkedinMember;
}

export class LinkedinOAuthClient {
  readonly #server: oauth.AuthorizationServer;
  readonly #origin: string;

  constructor(
    private readonly apiUrl: string,
    private readonly policy: OutgoingFetchPolicy,
    private readonly now: () => number,
  ) {
    this.#origin = linkedinAuthOrigin(apiUrl);
    // LinkedIn's OpenID issuer is https://www.linkedin.com/oauth; its ID tokens are RS256.
    this.#server = {
      issuer: `${this.#origin}/oauth`,
      authorization_endpoint: `${this.#origin}/oauth/v2/authorization`,
      token_endpoint: `${this.#origin}/oauth/v2/accessToken`,
      id_token_signing_alg_values_supported: ["RS256"],
    };
  }

  authorizeUrl(app: LinkedinApp, redirectUri: string, state: string): URL {
    const url = new URL(this.#server.authorization_endpoint as string);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", app.clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("state", state);
    url.searchParams.set("scope", LINKEDIN_SCOPES.join(" "));
    return url;
  }

  /** The code of the callback, or LinkedinOAuthError("denied") when the member cancelled. */
  #code(app: LinkedinApp, callback: URLSearchParams, state: string): URLSearchParams {
    try {
      return oauth.validateAuthResponse(this.#server, { client_id: app.clientId }, callback, state);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError)
        throw new LinkedinOAuthError("denied", `LinkedIn: ${error.error_description ?? error.error}`, {
          cause: error,
        });
      throw new LinkedinOAuthError("invalid-answer", "LinkedIn's answer is not a usable authorization", {
        cause: error,
      });
    }
  }

  /** Exchanges the code, then asks /v2/userinfo whose the token is. */
  async finish(
    app: LinkedinApp,
    redirectUri: string,
    callback: URLSearchParams,
    state: string,
    context: ConnectContext,
  ): Promise<LinkedinToken> {
    const params = this.#code(app, callback, state);
    const client: oauth.Client = { client_id: app.clientId };
    let token: oauth.TokenEndpointResponse;
    const exchangedAt = this.now();
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        this.#server,
        client,
        oauth.ClientSecretPost(app.clientSecret),
        params,
        redirectUri,
        oauth.nopkce,
        this.#library(),
      );
      token = await oauth.processAuthorizationCodeResponse(this.#server, client, response);
    } catch (error) {
      if (error instanceof LinkedinOAuthError) throw error;
      if (error instanceof oauth.ResponseBodyError) {
        const kind = error.error === "invalid_client" ? "invalid-client" : "invalid-grant";
        throw new LinkedinOAuthError(kind, `LinkedIn: ${error.error_description ?? error.error}`, {
          cause: error,
        });
      }
      throw new LinkedinOAuthError(
        "invalid-answer",
        `LinkedIn: the token answer is not usable (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
    const lifetime = typeof token.expires_in === "number" ? token.expires_in : 60 * 24 * 3600;
    const member = await linkedinMember(this.apiUrl, token.access_token, context);
    return { accessToken: token.access_token, expiresAt: new Date(exchangedAt + lifetime * 1000), member };
  }

  #library() {
    const fetchFor = async (url: string, init: oauth.CustomFetchOptions<string, unknown>) => {
      const headers: Record<string, string> = {};
      new Headers(init.headers as HeadersInit).forEach((value, key) => {
        headers[key] = value;
      });
      try {
        const answer = await safeFetch(url, {
          policy: this.policy,
          maxBytes: 256 * 1024,
          maxRedirects: 0,
          timeoutMs: 15_000,
          method: init.method === "POST" ? "POST" : "GET",
          headers,
          ...(init.body === undefined || init.body === null ? {} : { body: String(init.body) }),
        });
        return new Response(answer.status === 204 ? null : answer.body, {
          status: answer.status,
          headers: answer.headers,
        });
      } catch (error) {
        if (error instanceof OutgoingFetchError)
          throw new LinkedinOAuthError("unreachable", `${new URL(url).origin} could not be reached`, {
            cause: error,
          });
        throw error;
      }
    };
    return {
      [oauth.customFetch]: fetchFor,
      [oauth.allowInsecureRequests]: new URL(this.#origin).protocol === "http:",
    };
  }
}
