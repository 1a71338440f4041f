// The authorization endpoint (IndieAuth §5.2): the signed-in owner sees which client asks for
// what, ticks the scopes to grant, and is sent back to the client with a code, or with an error
// once the client is known to be the one at redirect_uri.
import type { Response, Router } from "express";
import { z } from "zod";
import { badRequest, forbidden, HttpError } from "../../contract/http-error.ts";
import { passesCsrf } from "../auth/authenticate.ts";
import { parseClientId, parseRedirectUri, sameOrigin } from "./client-id.ts";
import { fetchClientInfo } from "./client-metadata.ts";
import { type AuthorizationRequest, ConsentTickets } from "./consent-ticket.ts";
import type { IndieAuthServer } from "./indieauth-server.ts";
import { apiResponse, firstIssue, form } from "./oauth-http.ts";
import { PKCE_VALUE } from "./pkce.ts";
import { readScopes } from "./scopes.ts";
import { spendCode } from "./token.ts";

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

export function authorizationRoutes(router: Router, server: IndieAuthServer): void {
  const { host, sessions, store, urls, me } = server;
  const tickets = new ConsentTickets(host.hostConfig.secrets.secret);
  const fetchPolicy = { ownSite: me, allowPrivate: host.hostConfig.file.fetch.allowPrivate };
  const origin = new URL(host.hostConfig.application.url).origin;

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
  router.get("/", async (req, res) => {
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
    if (!code_challenge) return back("invalid_request", "code_challenge is missing: PKCE (S256) is required");
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
  });

  router.post("/consent", async (req, res) => {
    const session = await sessions.read(req);
    if (!session) throw forbidden("Sign in first, then answer the client's request again");
    if (!passesCsrf(req, session.csrf, origin))
      throw forbidden("This form has expired or was sent from another site. Reload the page and try again.");
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
  });

  // A code redeemed at the authorization endpoint says who signed in, and grants nothing (§5.3.2).
  router.post("/", apiResponse, async (req, res) => {
    await spendCode(server, form(req));
    res.json({ me });
  });
}
