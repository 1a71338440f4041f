// The IndieAuth server (W3C IndieAuth, 2022 edition and later): the authorization endpoint with its
// consent page, the token endpoint (authorization codes with PKCE S256, rotating refresh tokens),
// revocation and introspection. Access tokens are the server's own JWTs, recorded in the token
// registry, so they are listed and revoked on the status page with every other token.
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { z } from "zod";
import { badRequest, forbidden, HttpError, unauthorized } from "../../contract/http-error.ts";
import { passesCsrf } from "../auth/authenticate.ts";
import type { SessionManager } from "../auth/session.ts";
import type { TokenRegistry } from "../auth/token-registry.ts";
import type { Host } from "../host.ts";
import { parseClientId, parseRedirectUri, sameOrigin } from "./client-id.ts";
import { fetchClientInfo } from "./client-metadata.ts";
import { type AuthorizationRequest, ConsentTickets } from "./consent-ticket.ts";
import { indieauthUrls, metadataDocument } from "./endpoints.ts";
import { type CodeGrant, type GrantStore, grantStore, type RefreshGrant } from "./grant-store.ts";
import { PKCE_VALUE, verifierMatches } from "./pkce.ts";
import { readScopes } from "./scopes.ts";

const text = (max: number) => z.string().max(max);

const authorizationQuery = z.object({
  response_type: text(40).optional(),
  client_id: text(2048),
  redirect_uri: text(2048),
  state: text(2048).optional(),
  code_challenge: text(200).optional(),
  code_challenge_method: text(40).optional(),
  scope: text(2000).optional(),
  me: text(2048).optional(),
});

const consentForm = z.object({
  ticket: text(8192),
  decision: z.enum(["approve", "deny"]),
  scope: z.union([text(40), z.array(text(40)).max(20)]).optional(),
});

const codeExchange = z.object({
  grant_type: z.literal("authorization_code"),
  code: text(200),
  client_id: text(2048),
  redirect_uri: text(2048),
  code_verifier: text(200),
});

const refreshRequest = z.object({
  grant_type: z.literal("refresh_token"),
  refresh_token: text(200),
  client_id: text(2048),
  scope: text(2000).optional(),
});

const tokenParameter = z.object({ token: text(8192).min(1) });

const oauthError = (error: string, description: string, status = 400) =>
  new HttpError(status, error, description);

/** Token endpoints answer JSON whatever the Accept, never cached (RFC 6749 §5.1), open to any origin. */
function apiResponse(req: Request, res: Response, next: NextFunction): void {
  res.locals.jsonErrors = true;
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Pragma", "no-cache");
  // Browser-based clients call these without cookies; the answer never depends on ours.
  res.setHeader("Access-Control-Allow-Origin", "*");
  if (req.method === "OPTIONS") {
    res.setHeader("Access-Control-Allow-Methods", "GET, POST");
    res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept");
    res.status(204).end();
    return;
  }
  next();
}

function form(req: Request): Record<string, unknown> {
  if (!req.is("application/x-www-form-urlencoded"))
    throw badRequest("Send the request form-encoded (application/x-www-form-urlencoded)");
  return (req.body ?? {}) as Record<string, unknown>;
}

function bearer(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return match?.[1] ?? null;
}

const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0];
  const field = issue?.path.join(".") ?? "";
  return issue?.code === "invalid_type" && issue.input === undefined
    ? `${field} is missing`
    : `${field} is not valid`;
};

export function metadataRoute(baseUrl: string) {
  return [
    apiResponse,
    (_req: Request, res: Response) => {
      res.setHeader("Cache-Control", "max-age=3600");
      res.json(metadataDocument(indieauthUrls(baseUrl)));
    },
  ];
}

export function indieauthRoutes(
  host: Host,
  sessions: SessionManager,
  registry: TokenRegistry,
  store: GrantStore = grantStore(host.database),
): Router {
  const router = express.Router();
  const { application } = host.hostConfig;
  const urls = indieauthUrls(application.url);
  const me = host.publication.me;
  const tickets = new ConsentTickets(host.hostConfig.secrets.secret);
  const fetchPolicy = { ownSite: me, allowPrivate: host.hostConfig.file.fetch.allowPrivate };
  const origin = new URL(application.url).origin;

  /** Back to the client with an error (only once its redirect_uri is known to be its own). */
  const redirectError = (
    res: Response,
    redirectUri: string,
    state: string | undefined,
    error: string,
    description: string,
  ) => {
    const target = new URL(redirectUri);
    target.searchParams.set("error", error);
    target.searchParams.set("error_description", description);
    if (state !== undefined) target.searchParams.set("state", state);
    target.searchParams.set("iss", urls.issuer);
    res.redirect(303, target.href);
  };

  // Authorization endpoint: the signed-in owner sees who asks for what, and answers.
  router.get("/", async (req, res, next) => {
    try {
      const query = authorizationQuery.safeParse(req.query);
      if (!query.success) throw badRequest(`The authorization request's ${firstIssue(query.error)}`);
      const { client_id, redirect_uri, state, code_challenge, code_challenge_method } = query.data;
      const clientId = parseClientId(client_id);
      if (typeof clientId === "string") throw badRequest(clientId);
      const redirectUri = parseRedirectUri(redirect_uri);
      if (typeof redirectUri === "string") throw badRequest(redirectUri);

      const session = await sessions.read(req);
      if (!session) {
        res.redirect(303, `/session/login?redirect=${encodeURIComponent(req.originalUrl)}`);
        return;
      }
      const client = await fetchClientInfo(clientId.href, fetchPolicy);
      // Never send a code where the client does not receive it (IndieAuth §4.2.2): an error page here.
      if (!sameOrigin(redirectUri, clientId) && !client.redirectUris.includes(redirectUri.href))
        throw badRequest(
          `redirect_uri ${redirectUri.href} is not on the host of client_id ${clientId.href}, and the client does not list it`,
        );
      // An error goes back to redirect_uri only once the client is verified: its own page, fetched
      // from client_id, answered as a client (RFC 6749 §4.1.2.1). Otherwise anyone could make this
      // server bounce a visitor to any address of theirs (an open redirect): the owner sees a page.
      const back = (error: string, description: string) => {
        if (client.fetched) return redirectError(res, redirectUri.href, state, error, description);
        throw new HttpError(
          400,
          error,
          `${description}; the client could not be verified, so you are not sent back to it`,
        ).localized("indieauth.unverifiedClient", { reason: description, client: clientId.host });
      };
      if (query.data.response_type !== "code")
        return back("unsupported_response_type", 'response_type must be "code"');
      if (!state) return back("invalid_request", "state is missing");
      if (!code_challenge)
        return back("invalid_request", "code_challenge is missing: PKCE (S256) is required");
      if (code_challenge_method !== "S256")
        return back("invalid_request", 'code_challenge_method must be "S256"; "plain" is not accepted');
      if (!PKCE_VALUE.test(code_challenge))
        return back("invalid_request", "code_challenge must be 43 to 128 characters of base64url");

      const { offered, unknown } = readScopes(query.data.scope);
      const request: AuthorizationRequest = {
        clientId: clientId.href,
        redirectUri: redirectUri.href,
        state,
        codeChallenge: code_challenge,
        scope: offered,
      };
      const ticket = await tickets.sign(request, session.sid);
      res.locals.auth = { method: "session", me: session.me, scope: [], clientId: "session" };
      res.locals.csrfToken = session.csrf;
      res.setHeader("Cache-Control", "no-store");
      // The answer redirects to the client: the form may lead there (CSP form-action covers redirects).
      const formTarget = /^https?:$/.test(redirectUri.protocol) ? redirectUri.origin : redirectUri.protocol;
      res.setHeader(
        "Content-Security-Policy",
        `default-src 'self'; img-src 'self' data: https:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; form-action 'self' ${formTarget}`,
      );
      res.render("indieauth/consent.njk", {
        client,
        clientHost: clientId.host,
        redirectUri: redirectUri.href,
        scopes: offered,
        unknownScopes: unknown,
        me,
        ticket,
      });
    } catch (error) {
      next(error);
    }
  });

  router.post("/consent", async (req, res, next) => {
    try {
      const session = await sessions.read(req);
      if (!session) throw forbidden("Sign in first, then answer the client's request again");
      if (!passesCsrf(req, session.csrf, origin))
        throw forbidden(
          "This form has expired or was sent from another site. Reload the page and try again.",
        );
      const answer = consentForm.safeParse(req.body ?? {});
      if (!answer.success) throw badRequest(`The consent form's ${firstIssue(answer.error)}`);
      const request = await tickets.read(answer.data.ticket, session.sid);
      if (!request) throw badRequest("This consent page has expired; ask the client to sign in again");
      if (answer.data.decision === "deny")
        return redirectError(res, request.redirectUri, request.state, "access_denied", "The owner declined");
      const ticked = new Set([answer.data.scope ?? []].flat());
      const code = await store.issueCode({
        grantId: crypto.randomUUID(),
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        scope: request.scope.filter((scope) => ticked.has(scope)),
        me,
      });
      const target = new URL(request.redirectUri);
      target.searchParams.set("code", code);
      target.searchParams.set("state", request.state);
      target.searchParams.set("iss", urls.issuer);
      res.redirect(303, target.href);
    } catch (error) {
      next(error);
    }
  });

  /** Spends a code; every mismatch is invalid_grant (RFC 6749 §5.2), and the code is gone either way. */
  const spendCode = async (body: Record<string, unknown>): Promise<CodeGrant> => {
    const request = codeExchange.safeParse(body);
    if (!request.success) throw oauthError("invalid_request", `The request's ${firstIssue(request.error)}`);
    const { code, client_id, redirect_uri, code_verifier } = request.data;
    const redemption = await store.redeemCode(code);
    if (redemption.kind === "reused") {
      await revokeGrant(redemption.grantId);
      throw oauthError(
        "invalid_grant",
        "This authorization code was used before; the tokens issued for it are revoked",
      );
    }
    if (redemption.kind === "unknown") throw oauthError("invalid_grant", "Unknown authorization code");
    const grant = redemption.grant;
    if (grant.expiresAt.getTime() <= Date.now())
      throw oauthError("invalid_grant", "The authorization code has expired (codes live 10 minutes)");
    if (grant.clientId !== client_id)
      throw oauthError("invalid_grant", "The authorization code was issued to another client_id");
    if (grant.redirectUri !== redirect_uri)
      throw oauthError("invalid_grant", "redirect_uri differs from the authorization request's");
    if (!verifierMatches(code_verifier, grant.codeChallenge))
      throw oauthError("invalid_grant", "code_verifier does not match the code_challenge");
    return grant;
  };

  /** The scope a refresh asks for, if the grant allows it (it may keep or narrow, never widen). */
  const narrowedScope = (grant: RefreshGrant, clientId: string, asked: string | undefined): string[] => {
    if (grant.clientId !== clientId)
      throw oauthError("invalid_grant", "The refresh token was issued to another client_id");
    if (asked === undefined) return grant.scope;
    const words = asked.split(/\s+/).filter(Boolean);
    if (words.some((word) => !grant.scope.includes(word)))
      throw oauthError("invalid_scope", "A refresh can keep or narrow the scope, never widen it");
    return words;
  };

  const revokeGrant = async (grantId: string) => {
    for (const id of await store.revokeGrant(grantId)) await registry.revoke(id);
  };

  const issueTokens = async (grant: { grantId: string; clientId: string; scope: string[] }) => {
    const { accessTokenDays, refreshTokenDays } = application.indieauth;
    const { token, claims } = await host.tokens.mint({
      scope: grant.scope,
      clientId: grant.clientId,
      lifetimeDays: accessTokenDays,
    });
    const refreshExpiresAt = new Date(Date.now() + refreshTokenDays * 86_400_000);
    // The access token's row keeps the grant's revocation as long as this refresh token lives.
    await registry.record(claims, { id: grant.grantId, keepUntil: refreshExpiresAt });
    const refreshToken = await store.issueRefreshToken({
      grantId: grant.grantId,
      clientId: grant.clientId,
      scope: grant.scope,
      accessTokenId: claims.id,
      expiresAt: refreshExpiresAt,
    });
    return {
      access_token: token,
      token_type: "Bearer",
      scope: grant.scope.join(" "),
      me,
      expires_in: Math.round((claims.expiresAt.getTime() - Date.now()) / 1000),
      refresh_token: refreshToken,
    };
  };

  // A code redeemed at the authorization endpoint says who signed in, and grants nothing (§5.3.2).
  router.post("/", apiResponse, async (req, res, next) => {
    try {
      await spendCode(form(req));
      res.json({ me });
    } catch (error) {
      next(error);
    }
  });

  router.options(["/token", "/revoke", "/introspect"], apiResponse);

  router.post("/token", apiResponse, async (req, res, next) => {
    try {
      const body = form(req);
      // The revocation of IndieAuth's early days, which some clients still send.
      if (body.action === "revoke") {
        await revoke(body);
        res.json({});
        return;
      }
      if (body.grant_type === "authorization_code") {
        const grant = await spendCode(body);
        if (grant.scope.length === 0)
          throw oauthError(
            "invalid_grant",
            "No scope was granted with this code: it only says who signed in (redeem it at the authorization endpoint)",
          );
        res.json(await issueTokens(grant));
        return;
      }
      if (body.grant_type === "refresh_token") {
        const request = refreshRequest.safeParse(body);
        if (!request.success)
          throw oauthError("invalid_request", `The request's ${firstIssue(request.error)}`);
        // A request asking for more than the grant is refused before the token is spent: spending
        // it would make the client's next genuine refresh look like a replay and end its grant.
        const live = await store.peekRefreshToken(request.data.refresh_token);
        if (live) narrowedScope(live, request.data.client_id, request.data.scope);
        const redemption = await store.redeemRefreshToken(request.data.refresh_token);
        if (redemption.kind === "reused") {
          await revokeGrant(redemption.grantId);
          throw oauthError("invalid_grant", "This refresh token was used before; the grant is revoked");
        }
        if (redemption.kind === "unknown")
          throw oauthError("invalid_grant", "Unknown, expired or revoked refresh token");
        const grant = redemption.grant;
        const scope = narrowedScope(grant, request.data.client_id, request.data.scope);
        if (await registry.isRevoked(grant.accessTokenId)) {
          // Revoked on the status page: the client must not mint its way back in.
          await revokeGrant(grant.grantId);
          throw oauthError("invalid_grant", "The owner revoked this client's access");
        }
        res.json(await issueTokens({ ...grant, scope }));
        return;
      }
      if (body.grant_type === undefined) throw oauthError("invalid_request", "grant_type is missing");
      throw oauthError(
        "unsupported_grant_type",
        'grant_type must be "authorization_code" or "refresh_token"',
      );
    } catch (error) {
      next(error);
    }
  });

  // Token verification of IndieAuth's early days (a resource server asks who a token is for).
  router.get("/token", apiResponse, async (req, res, next) => {
    try {
      const token = bearer(req);
      if (!token) throw unauthorized("Send the token to verify as Authorization: Bearer <token>");
      const claims = await liveClaims(token);
      if (!claims) throw unauthorized("The access token is not valid, expired or revoked");
      res.json({ me: claims.me, client_id: claims.clientId, scope: claims.scope.join(" ") });
    } catch (error) {
      next(error);
    }
  });

  const liveClaims = async (token: string) => {
    const verified = await host.tokens.verify(token);
    if ("reason" in verified || (await registry.isRevoked(verified.claims.id))) return null;
    return verified.claims;
  };

  /** RFC 7009: an access token or a refresh token; either ends the whole grant it belongs to. */
  const revoke = async (body: Record<string, unknown>) => {
    const request = tokenParameter.safeParse(body);
    if (!request.success) throw oauthError("invalid_request", "token is missing");
    const token = request.data.token;
    const verified = await host.tokens.verify(token);
    if ("claims" in verified) {
      await registry.revoke(verified.claims.id);
      const grantId = await store.grantOf({ accessTokenId: verified.claims.id });
      if (grantId) await revokeGrant(grantId);
      return;
    }
    const grantId = await store.grantOf({ refreshToken: token });
    if (grantId) await revokeGrant(grantId);
  };

  router.post("/revoke", apiResponse, async (req, res, next) => {
    try {
      await revoke(form(req));
      // Unknown tokens too: the answer tells nothing about which tokens exist (RFC 7009 §2.2).
      res.status(200).json({});
    } catch (error) {
      next(error);
    }
  });

  // Introspection (RFC 7662, IndieAuth §6.1) for the owner's tools and resource servers: the caller
  // proves itself with a live token of this server.
  router.post("/introspect", apiResponse, async (req, res, next) => {
    try {
      const caller = bearer(req);
      if (!caller || !(await liveClaims(caller)))
        throw unauthorized("Introspection needs Authorization: Bearer <a valid access token of this server>");
      const request = tokenParameter.safeParse(form(req));
      if (!request.success) throw oauthError("invalid_request", "token is missing");
      const claims = await liveClaims(request.data.token);
      if (!claims) {
        res.json({ active: false });
        return;
      }
      res.json({
        active: true,
        me: claims.me,
        client_id: claims.clientId,
        scope: claims.scope.join(" "),
        exp: Math.floor(claims.expiresAt.getTime() / 1000),
        iat: Math.floor(claims.issuedAt.getTime() / 1000),
      });
    } catch (error) {
      next(error);
    }
  });

  return router;
}
