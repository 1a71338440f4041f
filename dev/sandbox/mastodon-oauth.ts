// The sandbox Mastodon's OAuth 2 server, as Mastodon 4.3+ runs it on Doorkeeper. Each behaviour is
// the one Mastodon's documentation (github.com/mastodon/documentation, content/en/…) or source
// (github.com/mastodon/mastodon) states; the file and section are named beside it:
// - GET /.well-known/oauth-authorization-server: methods/oauth.md "Discover OAuth Server
//   Configuration" (app/presenters/oauth_metadata_presenter.rb); 404 before Mastodon 4.3.
// - POST /api/v1/apps: methods/apps.md "Create an application" (confidential clients only, scopes
//   default to "read", 422 "Validation failed: …" for a bad redirect URI).
// - GET /oauth/authorize: methods/oauth.md "Authorize a user": an HTML page with Authorize and Deny,
//   PKCE with S256 only (4.3.0), the code shown instead of a redirect for urn:ietf:wg:oauth:2.0:oob.
// - POST /oauth/token: methods/oauth.md "Obtain a token": authorization_code (code_verifier when
//   PKCE was used) and client_credentials; 401 invalid_client, 400 invalid_grant and invalid_scope.
//   Codes live 10 minutes and are used once (Doorkeeper's authorization_code_expires_in default,
//   config/initializers/doorkeeper.rb); tokens do not expire (access_token_expires_in nil) and are
//   reused for the same user, application and scopes (reuse_access_token).
// - POST /oauth/revoke: methods/oauth.md "Revoke a token": 200 {} (also for a token already revoked
//   or unknown, RFC 7009 2.2), 403 unauthorized_client for another application's token.
// - Scopes: api/oauth-scopes.md: hierarchical ("write" covers "write:statuses"), "profile" reaches
//   only verify_credentials (4.3.0); an API call outside the token's scopes answers 403
//   {"error": "This action is outside the authorized scopes"} (app/controllers/api/base_controller.rb).
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { escapeHtml, readBody, sameSecret, sendHtml, sendJson } from "./http-kit.ts";

export const OOB_REDIRECT_URI = "urn:ietf:wg:oauth:2.0:oob";

/** config/initializers/doorkeeper.rb's default_scopes and optional_scopes of Mastodon 4.4. */
export const MASTODON_SCOPES = [
  "read",
  "write",
  "write:accounts",
  "write:blocks",
  "write:bookmarks",
  "write:conversations",
  "write:favourites",
  "write:filters",
  "write:follows",
  "write:lists",
  "write:media",
  "write:mutes",
  "write:notifications",
  "write:reports",
  "write:statuses",
  "read:accounts",
  "read:blocks",
  "read:bookmarks",
  "read:favourites",
  "read:filters",
  "read:follows",
  "read:lists",
  "read:mutes",
  "read:notifications",
  "read:search",
  "read:statuses",
  "follow",
  "push",
  "profile",
];

/** Doorkeeper's error descriptions (config/locales/doorkeeper.en.yml), as Mastodon answers them. */
const descriptions = {
  invalid_client:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  invalid_request:
    "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalid_redirect_uri: "The requested redirect uri is malformed or doesn't match client redirect URI.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  access_denied: "The resource owner or authorization server denied the request.",
  unauthorized_client: "You are not authorized to revoke this token",
} as const;

export interface SandboxApp {
  id: string;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string[];
  clientId: string;
  clientSecret: string;
}

export interface SandboxToken {
  token: string;
  appId: string;
  /** The user it acts for; null for an application token (client_credentials). */
  user: string | null;
  scopes: string[];
  createdAt: number;
  revokedAt: number | null;
}

interface Code {
  code: string;
  appId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string | null;
  expires: number;
}

export interface SandboxOAuthOptions {
  /** false: answer 404 to /.well-known/oauth-authorization-server, as Mastodon before 4.3. */
  metadata: boolean;
  /** The one user who is signed in to the sandbox (it has no sign-in page). */
  user: string;
  sandboxName: string;
  now: () => number;
  /** The scopes an application may register (another server's: mastodon-software.ts); Mastodon's unless given. */
  scopes?: readonly string[];
}

/** Doorkeeper's authorization_code_expires_in default. */
const codeLifetimeMs = 10 * 60 * 1000;
const maxFormBytes = 64 * 1024;
const random = () => randomBytes(32).toString("base64url");

export function createSandboxOAuth(options: SandboxOAuthOptions) {
  const apps: SandboxApp[] = [];
  const tokens: SandboxToken[] = [];
  const codes = new Map<string, Code>();
  /** The authorize page's authenticity tokens (Rails' CSRF protection of the Authorize form). */
  const formTokens = new Set<string>();
  let base = "";

  const appByClientId = (clientId: string | null) =>
    clientId ? apps.find((app) => sameSecret(app.clientId, clientId)) : undefined;

  /** Each requested scope must be one the application registered (Doorkeeper's ScopeChecker). */
  function parseScopes(value: string | null, allowed: readonly string[]): string[] | undefined {
    const scopes = (value ?? "read").split(/[\s+]+/).filter(Boolean);
    if (scopes.length === 0) return undefined;
    return scopes.every((scope) => allowed.includes(scope)) ? scopes : undefined;
  }

  async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
    const text = (await readBody(request, maxFormBytes)).toString("utf8");
    if (/^application\/json/i.test(request.headers["content-type"] ?? "")) {
      const params = new URLSearchParams();
      const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      for (const [key, value] of Object.entries(json)) {
        if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
        else if (value !== null && value !== undefined) params.set(key, String(value));
      }
      return params;
    }
    return new URLSearchParams(text);
  }

  /** Doorkeeper reads the client from HTTP Basic first, then from client_id and client_secret. */
  function authenticateClient(request: IncomingMessage, form: URLSearchParams): SandboxApp | undefined {
    let clientId = form.get("client_id");
    let clientSecret = form.get("client_secret");
    const basic = /^Basic\s+(.+)$/i.exec(request.headers.authorization ?? "");
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon > 0) {
        clientId = decodeURIComponent(decoded.slice(0, colon));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1));
      }
    }
    const app = appByClientId(clientId);
    return app && clientSecret !== null && sameSecret(app.clientSecret, clientSecret) ? app : undefined;
  }

  function oauthError(response: ServerResponse, status: number, error: keyof typeof descriptions): void {
    sendJson(response, status, { error, error_description: descriptions[error] });
  }

  function metadata() {
    return {
      issuer: `${base}/`,
      service_documentation: "https://docs.joinmastodon.org/",
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      app_registration_endpoint: `${base}/api/v1/apps`,
      revocation_endpoint: `${base}/oauth/revoke`,
      userinfo_endpoint: `${base}/oauth/userinfo`,
      scopes_supported: MASTODON_SCOPES,
      response_types_supported: ["code"],
      response_modes_supported: ["query", "fragment", "form_post"],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    };
  }

  async function createApp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = await readForm(request);
    const name = form.get("client_name")?.trim();
    const redirectUris = form
      .getAll("redirect_uris")
      .concat(form.getAll("redirect_uris[]"))
      .flatMap((value) => value.split(/\s+/))
      .filter(Boolean);
    if (!name) {
      sendJson(response, 422, { error: "Validation failed: Application name can't be blank" });
      return;
    }
    if (redirectUris.length === 0) {
      sendJson(response, 422, { error: "Validation failed: Redirect URI can't be blank" });
      return;
    }
    for (const uri of redirectUris) {
      if (uri === OOB_REDIRECT_URI) continue;
      let parsed: URL | undefined;
      try {
        parsed = new URL(uri);
      } catch {
        parsed = undefined;
      }
      // forbid_redirect_uri in config/initializers/doorkeeper.rb; Doorkeeper's RedirectUriValidator.
      if (!parsed || ["data:", "vbscript:", "javascript:"].includes(parsed.protocol) || parsed.hash) {
        sendJson(response, 422, { error: "Validation failed: Redirect URI must be an absolute URI." });
        return;
      }
    }
    // enforce_configured_scopes: an unknown scope is refused at registration.
    const scopes = parseScopes(form.get("scopes"), options.scopes ?? MASTODON_SCOPES);
    if (!scopes) {
      sendJson(response, 422, { error: "Validation failed: Scopes must be a valid scope" });
      return;
    }
    const app: SandboxApp = {
      id: String(apps.length + 1),
      name,
      website: form.get("website"),
      redirectUris,
      scopes,
      clientId: random(),
      clientSecret: random(),
    };
    apps.push(app);
    sendJson(response, 200, {
      id: app.id,
      name: app.name,
      website: app.website,
      scopes: app.scopes,
      redirect_uri: app.redirectUris.join("\n"),
      redirect_uris: app.redirectUris,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      client_secret_expires_at: 0,
    });
  }

  /** Doorkeeper's pre-authorization: what is wrong before a redirect may be made, and after. */
  function preAuthorize(
    params: URLSearchParams,
  ):
    | { ok: true; app: SandboxApp; redirectUri: string; scopes: string[]; challenge: string | null }
    | { ok: false; error: keyof typeof descriptions; redirect: boolean } {
    const app = appByClientId(params.get("client_id"));
    if (!app) return { ok: false, error: "invalid_client", redirect: false };
    const redirectUri = params.get("redirect_uri") ?? "";
    if (!app.redirectUris.includes(redirectUri))
      return { ok: false, error: "invalid_redirect_uri", redirect: false };
    if (params.get("response_type") !== "code")
      return { ok: false, error: "invalid_request", redirect: true };
    const scopes = parseScopes(params.get("scope"), app.scopes);
    if (!scopes) return { ok: false, error: "invalid_scope", redirect: true };
    const challenge = params.get("code_challenge") || null;
    const method = params.get("code_challenge_method");
    // pkce_code_challenge_methods ["S256"]: "plain" or another method is an invalid request.
    if (challenge !== null && method !== "S256")
      return { ok: false, error: "invalid_request", redirect: true };
    return { ok: true, app, redirectUri, scopes, challenge };
  }

  function redirectTo(response: ServerResponse, redirectUri: string, params: Record<string, string>): void {
    const target = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
    response.writeHead(302, { location: target.href });
    response.end();
  }

  function errorPage(response: ServerResponse, error: keyof typeof descriptions): void {
    sendHtml(
      response,
      400,
      page(
        "An error has occurred",
        `<h1>An error has occurred</h1><p>${escapeHtml(descriptions[error])}</p><p><code>${error}</code></p>`,
      ),
    );
  }

  function page(title: string, body: string): string {
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} - ${escapeHtml(options.sandboxName)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;background:#f4f4f8;color:#1c1c28;margin:0}main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:8px;padding:1.5rem;box-shadow:0 1px 2px #0002}
button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:0;cursor:pointer}.authorize{background:#563acc;color:#fff}.deny{background:#eee;color:#1c1c28}
ul{padding-left:1.2rem}code{word-break:break-all}</style></head><body><main>${body}</main></body></html>`;
  }

  /** GET /oauth/authorize: app/views/oauth/authorizations/new.html.haml, in short. */
  function authorizePage(response: ServerResponse, params: URLSearchParams): void {
    const checked = preAuthorize(params);
    if (!checked.ok) {
      const state = params.get("state");
      if (checked.redirect) {
        const redirectUri = params.get("redirect_uri") ?? "";
        if (redirectUri !== OOB_REDIRECT_URI) {
          redirectTo(response, redirectUri, {
            error: checked.error,
            error_description: descriptions[checked.error],
            ...(state ? { state } : {}),
          });
          return;
        }
      }
      errorPage(response, checked.error);
      return;
    }
    const formToken = random();
    formTokens.add(formToken);
    const hidden = [
      ["authenticity_token", formToken],
      ["client_id", params.get("client_id") ?? ""],
      ["redirect_uri", checked.redirectUri],
      ["state", params.get("state") ?? ""],
      ["response_type", "code"],
      ["scope", checked.scopes.join(" ")],
      ["code_challenge", checked.challenge ?? ""],
      ["code_challenge_method", checked.challenge ? "S256" : ""],
    ]
      .filter(([, value]) => value)
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value ?? "")}">`)
      .join("");
    const scopes = checked.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join("");
    sendHtml(
      response,
      200,
      page(
        "Authorization required",
        `<h1>Authorization required</h1>
<p><strong>${escapeHtml(checked.app.name)}</strong> would like permission to access your account <strong>@${escapeHtml(options.user)}@${escapeHtml(new URL(base).host)}</strong>. It is a third-party application. If you do not trust it, then you should not authorize it.</p>
<p>Review permissions</p><ul>${scopes}</ul>
<form method="post" action="/oauth/authorize">${hidden}<button class="authorize" type="submit">Authorize</button></form>
<form method="post" action="/oauth/authorize">${hidden}<input type="hidden" name="_method" value="delete"><button class="deny" type="submit">Deny</button></form>`,
      ),
    );
  }

  /** POST /oauth/authorize (Authorize) and its _method=delete (Deny). */
  async function decide(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = await readForm(request);
    const formToken = form.get("authenticity_token") ?? "";
    if (!formTokens.delete(formToken)) {
      // Rails' InvalidAuthenticityToken: Mastodon answers 422 with its error page.
      sendHtml(response, 422, page("Security verification failed", "<h1>Security verification failed</h1>"));
      return;
    }
    const checked = preAuthorize(form);
    if (!checked.ok) {
      errorPage(response, checked.error);
      return;
    }
    const state = form.get("state");
    if (form.get("_method") === "delete") {
      if (checked.redirectUri === OOB_REDIRECT_URI) {
        errorPage(response, "access_denied");
        return;
      }
      redirectTo(response, checked.redirectUri, {
        error: "access_denied",
        error_description: descriptions.access_denied,
        ...(state ? { state } : {}),
      });
      return;
    }
    const code: Code = {
      code: random(),
      appId: checked.app.id,
      redirectUri: checked.redirectUri,
      scopes: checked.scopes,
      challenge: checked.challenge,
      expires: options.now() + codeLifetimeMs,
    };
    codes.set(code.code, code);
    if (checked.redirectUri === OOB_REDIRECT_URI) {
      // Doorkeeper's native redirect: the code is shown for the user to copy.
      sendHtml(
        response,
        200,
        page(
          "Authorization code",
          `<h1>Authorization code</h1><p>Copy this authorization code and paste it to the application.</p><p><code id="code">${escapeHtml(code.code)}</code></p>`,
        ),
      );
      return;
    }
    redirectTo(response, checked.redirectUri, { code: code.code, ...(state ? { state } : {}) });
  }

  function issueToken(app: SandboxApp, user: string | null, scopes: string[]): SandboxToken {
    const same = (token: SandboxToken) =>
      token.appId === app.id &&
      token.user === user &&
      token.revokedAt === null &&
      token.scopes.join(" ") === scopes.join(" ");
    // reuse_access_token: the same user, application and scopes get the token they already have.
    const existing = user === null ? undefined : tokens.find(same);
    if (existing) return existing;
    const token: SandboxToken = {
      token: random(),
      appId: app.id,
      user,
      scopes,
      createdAt: options.now(),
      revokedAt: null,
    };
    tokens.push(token);
    return token;
  }

  function tokenBody(token: SandboxToken) {
    return {
      access_token: token.token,
      token_type: "Bearer",
      scope: token.scopes.join(" "),
      created_at: Math.floor(token.createdAt / 1000),
    };
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = await readForm(request);
    const grantType = form.get("grant_type");
    if (grantType !== "authorization_code" && grantType !== "client_credentials") {
      oauthError(response, 400, "unsupported_grant_type");
      return;
    }
    const app = authenticateClient(request, form);
    if (!app) {
      oauthError(response, 401, "invalid_client");
      return;
    }
    if (grantType === "client_credentials") {
      const scopes = parseScopes(form.get("scope"), app.scopes);
      if (!scopes) {
        oauthError(response, 400, "invalid_scope");
        return;
      }
      sendJson(response, 200, tokenBody(issueToken(app, null, scopes)));
      return;
    }
    const code = codes.get(form.get("code") ?? "");
    if (!code || code.appId !== app.id || code.expires <= options.now()) {
      oauthError(response, 400, "invalid_grant");
      return;
    }
    if (form.get("redirect_uri") !== code.redirectUri) {
      oauthError(response, 400, "invalid_grant");
      return;
    }
    if (code.challenge !== null) {
      const verifier = form.get("code_verifier") ?? "";
      const computed = createHash("sha256").update(verifier).digest("base64url");
      // RFC 7636 4.6: a verifier that does not match is invalid_grant (Doorkeeper's PKCE check).
      if (!verifier || !sameSecret(computed, code.challenge)) {
        oauthError(response, 400, "invalid_grant");
        return;
      }
    }
    // A code is used once, whatever the outcome after this point.
    codes.delete(code.code);
    sendJson(response, 200, tokenBody(issueToken(app, options.user, code.scopes)));
  }

  async function revoke(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = await readForm(request);
    const app = authenticateClient(request, form);
    if (!app) {
      sendJson(response, 403, {
        error: "unauthorized_client",
        error_description: descriptions.unauthorized_client,
      });
      return;
    }
    const presented = form.get("token") ?? "";
    const known = tokens.find((token) => presented !== "" && sameSecret(token.token, presented));
    if (known && known.appId !== app.id) {
      sendJson(response, 403, {
        error: "unauthorized_client",
        error_description: descriptions.unauthorized_client,
      });
      return;
    }
    if (known && known.revokedAt === null) known.revokedAt = options.now();
    sendJson(response, 200, {});
  }

  return {
    apps: apps as readonly SandboxApp[],
    tokens: tokens as readonly SandboxToken[],
    setBase(url: string) {
      base = url;
    },
    /** Answers the request when it is one of OAuth's; false when it is not. */
    async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
      const path = url.pathname.replace(/\/+$/, "");
      const method = request.method ?? "GET";
      if (path === "/.well-known/oauth-authorization-server" && method === "GET") {
        if (options.metadata) sendJson(response, 200, metadata());
        else sendHtml(response, 404, page("Not found", "<h1>The page you are looking for isn't here.</h1>"));
        return true;
      }
      if (path === "/api/v1/apps" && method === "POST") {
        await createApp(request, response);
        return true;
      }
      if (path === "/oauth/authorize" && method === "GET") {
        authorizePage(response, url.searchParams);
        return true;
      }
      if (path === "/oauth/authorize" && method === "POST") {
        await decide(request, response);
        return true;
      }
      if (path === "/oauth/token" && method === "POST") {
        await token(request, response);
        return true;
      }
      if (path === "/oauth/revoke" && method === "POST") {
        await revoke(request, response);
        return true;
      }
      return false;
    },
    /** The live token presented, if the sandbox issued it and it is not revoked. */
    tokenFor(presented: string): SandboxToken | undefined {
      return tokens.find((token) => token.revokedAt === null && sameSecret(token.token, presented));
    },
    /** Forgets every registered application, as Mastodon before 4.3 vacuumed unused ones. */
    forgetApps() {
      apps.splice(0, apps.length);
      codes.clear();
    },
  };
}

export type SandboxOAuth = ReturnType<typeof createSandboxOAuth>;

/**
 * Whether a token's scopes reach an API call that needs one of `needed` (the scopes a controller's
 * doorkeeper_authorize! names): scopes are hierarchical, so "write" covers "write:statuses".
 */
export function scopesReach(granted: readonly string[], needed: readonly string[]): boolean {
  return needed.some((scope) => granted.includes(scope) || granted.includes(scope.split(":")[0] ?? scope));
}
