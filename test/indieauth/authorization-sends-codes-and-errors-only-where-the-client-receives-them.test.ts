// The authorization endpoint's routes in a bare Express app with the host's error handler, the real
// session manager, consent tickets and in-memory grant store, and clients served on the loopback
// address (allowPrivate): who may be sent back where, and with what. A redirect URI neither on the
// client's host nor listed by it is a page, never a redirect; a client whose own page could not be
// read gets errors on a page, never bounced to its redirect URI; a request without state or S256
// PKCE is refused; a consent answer needs the session it was shown to and its CSRF token, and grants
// only what was asked and ticked. The page's template is not rendered here: `render` answers what it
// was given. test/indieauth/ runs the same through the whole host.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import express, { type Response } from "express";
import { decodeJwt } from "jose";
import { SESSION_COOKIE, SessionManager } from "../../src/server/auth/session.ts";
import { sessionRevocations } from "../../src/server/auth/session-revocations.ts";
import { tokenRegistry } from "../../src/server/auth/token-registry.ts";
import { errorHandler } from "../../src/server/errors.ts";
import { authorizationRoutes } from "../../src/server/indieauth/authorization.ts";
import { grantStore } from "../../src/server/indieauth/grant-store.ts";
import type { IndieAuthServer } from "../../src/server/indieauth/indieauth-server.ts";
import { s256 } from "../../src/server/indieauth/pkce.ts";
import { createLogger } from "../../src/server/logger.ts";

const SECRET = "a-server-secret-of-thirty-two-characters";
const ME = "https://me.example/";
const VERIFIER = "v".repeat(43);
const CHALLENGE = s256(VERIFIER);
const LISTED = "https://elsewhere.example/listed";

const sessions = new SessionManager(SECRET, ME, false, sessionRevocations(null));
const store = grantStore(null);

let base = "";
let issuer = "";
let clientOrigin = "";
const servers: Server[] = [];
before(async () => {
  // The clients: one that lists a redirect URI on another host in its metadata, one whose page is missing.
  const clients = createServer((req, res) => {
    if (req.url === "/verified/")
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: `${clientOrigin}/verified/`,
          client_name: "Verified App",
          redirect_uris: [LISTED, "com.example.app:/callback", "ext+http:/callback"],
        }),
      );
    else res.writeHead(404).end();
  });
  clients.listen(0, "127.0.0.1");
  await new Promise((resolve) => clients.once("listening", resolve));
  clientOrigin = `http://127.0.0.1:${(clients.address() as AddressInfo).port}`;
  servers.push(clients);

  const app = express();
  app.use(express.urlencoded({ extended: true }));
  // Express's view rendering is not under test: the page answers the template's name and values.
  app.use((req, res, next) => {
    // A page's error asks for the locale's message: the page answers which, with its values.
    if (req.headers.accept === "text/html") res.locals.t = (key: string) => key;
    res.render = ((view: string, values?: object) => {
      res.json({
        view,
        values,
        locals: { auth: res.locals.auth, csrfToken: res.locals.csrfToken },
      });
    }) as Response["render"];
    next();
  });
  const router = express.Router();
  app.use("/auth", router);
  app.use(errorHandler(createLogger("silent"), false));
  const listening = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => listening.once("listening", resolve));
  servers.push(listening);
  const origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  base = `${origin}/auth`;
  issuer = `${origin}/`;
  const server = {
    host: {
      hostConfig: {
        secrets: { secret: SECRET },
        file: { fetch: { allowPrivate: true } },
        application: { url: origin },
      },
    },
    sessions,
    store,
    registry: tokenRegistry(null),
    urls: { issuer },
    me: ME,
  } as unknown as IndieAuthServer;
  authorizationRoutes(router, server);
});
after(() => {
  for (const server of servers) server.close();
});

/** A signed-in owner: the session cookie and its CSRF token, as the sign-in sets them. */
async function signIn(): Promise<{ cookie: string; csrf: string }> {
  let value = "";
  const res = {
    cookie(_name: string, set: string) {
      value = set;
    },
  } as unknown as Response;
  await sessions.start({ headers: {}, secure: false } as express.Request, res);
  return { cookie: `${SESSION_COOKIE}=${value}`, csrf: String(decodeJwt(value).csrf) };
}

const verified = () => ({ client_id: `${clientOrigin}/verified/`, redirect_uri: `${clientOrigin}/callback` });
const unverified = () => ({
  client_id: `${clientOrigin}/unverified/`,
  redirect_uri: `${clientOrigin}/callback`,
});
const complete = {
  response_type: "code",
  state: "the-state",
  code_challenge: CHALLENGE,
  code_challenge_method: "S256",
  scope: "create update made-up",
};

async function ask(query: Record<string, string>, cookie?: string) {
  const response = await fetch(`${base}?${new URLSearchParams(query)}`, {
    headers: cookie ? { cookie } : {},
    redirect: "manual",
  });
  const type = response.headers.get("content-type") ?? "";
  return {
    status: response.status,
    headers: response.headers,
    location: response.headers.get("location"),
    body: type.includes("json") ? ((await response.json()) as Record<string, unknown>) : {},
  };
}

/** The consent page's values for a complete request of the verified client. */
async function consentPage(owner: { cookie: string }, extra: Record<string, string> = {}) {
  const page = await ask({ ...verified(), ...complete, ...extra }, owner.cookie);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page;
}

async function answer(
  fields: Record<string, string | string[]>,
  owner?: { cookie: string },
  headers: Record<string, string> = {},
) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const one of [value].flat()) body.append(name, one);
  const response = await fetch(`${base}/consent`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(owner ? { cookie: owner.cookie } : {}),
      ...headers,
    },
    body,
    redirect: "manual",
  });
  const type = response.headers.get("content-type") ?? "";
  return {
    status: response.status,
    location: response.headers.get("location"),
    body: type.includes("json") ? ((await response.json()) as Record<string, unknown>) : {},
  };
}

const params = (location: string | null) => Object.fromEntries(new URL(location ?? "").searchParams);

describe("an authorization request", () => {
  it("is refused on a page when client_id or redirect_uri is missing or not allowed", async () => {
    const owner = await signIn();
    const cases: Array<[Record<string, string>, string]> = [
      [{ redirect_uri: `${clientOrigin}/callback` }, "The authorization request's client_id is missing"],
      [
        { ...verified(), client_id: "http://app.example/" },
        "client_id must be an https URL (http only on a loopback address such as 127.0.0.1)",
      ],
      [{ ...verified(), redirect_uri: "javascript:alert(1)" }, "redirect_uri must not be a javascript: URL"],
      [{ ...verified(), state: "s".repeat(2049) }, "The authorization request's state is not valid"],
    ];
    for (const [query, description] of cases) {
      const page = await ask({ ...complete, ...query }, owner.cookie);
      assert.equal(page.status, 400, description);
      assert.equal(page.location, null);
      assert.deepEqual(page.body, { error: "invalid_request", error_description: description });
    }
  });

  it("sends a visitor who is not signed in to sign in first, and back to the same request", async () => {
    const query = new URLSearchParams({ ...verified(), ...complete });
    const page = await ask(Object.fromEntries(query));
    assert.equal(page.status, 303);
    assert.equal(page.location, `/session/login?redirect=${encodeURIComponent(`/auth?${query}`)}`);
  });

  it("never sends a code to a redirect URI on another host that the client does not list: a page", async () => {
    const owner = await signIn();
    const elsewhere = "https://attacker.example/steal";
    const page = await ask({ ...verified(), ...complete, redirect_uri: elsewhere }, owner.cookie);
    assert.equal(page.status, 400);
    assert.equal(page.location, null);
    assert.equal(
      page.body.error_description,
      `redirect_uri ${elsewhere} is not on the host of client_id ${clientOrigin}/verified/, and the client does not list it`,
    );
    // Another port on the client's host is another origin too.
    const otherPort = await ask(
      { ...verified(), ...complete, redirect_uri: "http://127.0.0.1:1/callback" },
      owner.cookie,
    );
    assert.equal(otherPort.status, 400);
    const listed = await ask({ ...verified(), ...complete, redirect_uri: LISTED }, owner.cookie);
    assert.equal(listed.status, 200, "a redirect URI the client lists is allowed");
  });

  it("shows the consent page: who asks for what, a ticket, never cached, forms only to here and the client", async () => {
    const owner = await signIn();
    const page = await consentPage(owner);
    assert.equal(page.headers.get("cache-control"), "no-store");
    assert.equal(
      page.headers.get("content-security-policy"),
      `default-src 'self'; img-src 'self' data: https:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; form-action 'self' ${clientOrigin}`,
    );
    const { view, values, locals } = page.body as {
      view: string;
      values: Record<string, unknown>;
      locals: Record<string, unknown>;
    };
    assert.equal(view, "indieauth/consent.njk");
    assert.equal((values.client as { name: string }).name, "Verified App");
    assert.equal(values.clientHost, new URL(clientOrigin).host);
    assert.equal(values.redirectUri, `${clientOrigin}/callback`);
    assert.deepEqual(values.scopes, ["create", "update"]);
    assert.deepEqual(values.unknownScopes, ["made-up"]);
    assert.equal(values.me, ME);
    assert.equal(typeof values.ticket, "string");
    assert.deepEqual(locals, {
      auth: { method: "session", me: ME, scope: [], clientId: "session" },
      csrfToken: owner.csrf,
    });
  });

  it("lets the consent form go to a listed app's own scheme, named by its scheme alone", async () => {
    const owner = await signIn();
    for (const [redirect, target] of [
      ["com.example.app:/callback", "com.example.app:"],
      // A scheme that ends like http is not http: its origin would be "null".
      ["ext+http:/callback", "ext+http:"],
    ] as const) {
      const page = await ask({ ...verified(), ...complete, redirect_uri: redirect }, owner.cookie);
      assert.equal(page.status, 200, redirect);
      assert.ok(
        page.headers.get("content-security-policy")?.endsWith(` form-action 'self' ${target}`),
        redirect,
      );
    }
    const unlisted = await ask(
      { ...verified(), ...complete, redirect_uri: "org.example.other:/callback" },
      owner.cookie,
    );
    assert.equal(unlisted.status, 400);
  });
});

describe("a malformed request", () => {
  const refusals: Array<[string, Record<string, string | undefined>, string, string]> = [
    [
      "no response_type",
      { response_type: undefined },
      "unsupported_response_type",
      'response_type must be "code"',
    ],
    [
      "response_type token",
      { response_type: "token" },
      "unsupported_response_type",
      'response_type must be "code"',
    ],
    ["no state", { state: undefined }, "invalid_request", "state is missing"],
    ["an empty state", { state: "" }, "invalid_request", "state is missing"],
    [
      "no code_challenge",
      { code_challenge: undefined },
      "invalid_request",
      "code_challenge is missing: PKCE (S256) is required",
    ],
    [
      "plain PKCE",
      { code_challenge_method: "plain" },
      "invalid_request",
      'code_challenge_method must be "S256"; "plain" is not accepted',
    ],
    [
      "no PKCE method",
      { code_challenge_method: undefined },
      "invalid_request",
      'code_challenge_method must be "S256"; "plain" is not accepted',
    ],
    [
      "a short challenge",
      { code_challenge: "a".repeat(42) },
      "invalid_request",
      "code_challenge must be 43 to 128 characters of base64url",
    ],
  ];
  const query = (change: Record<string, string | undefined>) =>
    Object.fromEntries(
      Object.entries({ ...complete, ...change }).filter(([, value]) => value !== undefined),
    ) as Record<string, string>;

  for (const [name, change, error, description] of refusals) {
    it(`with ${name} goes back to a verified client with the error, its state and iss`, async () => {
      const owner = await signIn();
      const page = await ask({ ...verified(), ...query(change) }, owner.cookie);
      assert.equal(page.status, 303);
      const location = new URL(page.location ?? "");
      assert.equal(`${location.origin}${location.pathname}`, `${clientOrigin}/callback`);
      const expected: Record<string, string> = { error, error_description: description, iss: issuer };
      // A state sent, even empty, is given back; none sent, none given.
      if (!("state" in change)) expected.state = complete.state;
      else if (change.state !== undefined) expected.state = change.state;
      assert.deepEqual(params(page.location), expected);
    });

    it(`with ${name} is a page, not a redirect, for a client that could not be verified`, async () => {
      const owner = await signIn();
      const page = await ask({ ...unverified(), ...query(change) }, owner.cookie);
      assert.equal(page.status, 400);
      assert.equal(page.location, null);
      assert.deepEqual(page.body, {
        error,
        error_description: `${description}; the client could not be verified, so you are not sent back to it`,
      });
    });
  }

  it("for a client that could not be verified, shows the page's message naming the reason and the client's host", async () => {
    const owner = await signIn();
    const query = new URLSearchParams({ ...unverified(), ...complete, state: "" });
    const response = await fetch(`${base}?${query}`, {
      headers: { cookie: owner.cookie, accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(response.status, 400);
    const { view, values } = (await response.json()) as { view: string; values: Record<string, unknown> };
    assert.equal(view, "error.njk");
    assert.deepEqual(values.pageMessage, {
      key: "indieauth.unverifiedClient",
      values: { reason: "state is missing", client: new URL(clientOrigin).host },
    });
  });

  it("keeps the client's other query parameters on the way back", async () => {
    const owner = await signIn();
    const page = await ask(
      { ...verified(), redirect_uri: `${clientOrigin}/callback?app=1`, ...complete, response_type: "token" },
      owner.cookie,
    );
    assert.equal(params(page.location).app, "1");
  });
});

describe("the consent answer", () => {
  it("approved, sends the client a code for the scopes asked and ticked, with its state and iss", async () => {
    const owner = await signIn();
    const page = await consentPage(owner, { scope: "create update delete" });
    const ticket = String((page.body.values as Record<string, unknown>).ticket);
    const approved = await answer(
      { _csrf: owner.csrf, ticket, decision: "approve", scope: ["update", "delete", "media"] },
      owner,
    );
    assert.equal(approved.status, 303);
    const back = params(approved.location);
    assert.deepEqual(Object.keys(back).sort(), ["code", "iss", "state"]);
    assert.equal(back.state, "the-state");
    assert.equal(back.iss, issuer);
    assert.ok(approved.location?.startsWith(`${clientOrigin}/callback?`));
    const redemption = await store.redeemCode(back.code ?? "");
    assert.equal(redemption.kind, "ok");
    if (redemption.kind !== "ok") return;
    const { grantId, expiresAt, ...grant } = redemption.grant;
    assert.match(grantId, /^[0-9a-f-]{36}$/);
    assert.ok(expiresAt.getTime() > Date.now());
    assert.deepEqual(grant, {
      clientId: `${clientOrigin}/verified/`,
      redirectUri: `${clientOrigin}/callback`,
      codeChallenge: CHALLENGE,
      scope: ["update", "delete"],
      me: ME,
    });
  });

  it("approved with one scope ticked, or none, grants that one, or none", async () => {
    const owner = await signIn();
    for (const [ticked, granted] of [
      ["update", ["update"]],
      [undefined, []],
    ] as const) {
      const page = await consentPage(owner);
      const ticket = String((page.body.values as Record<string, unknown>).ticket);
      const fields: Record<string, string> = { _csrf: owner.csrf, ticket, decision: "approve" };
      if (ticked) fields.scope = ticked;
      const approved = await answer(fields, owner);
      const redemption = await store.redeemCode(params(approved.location).code ?? "");
      assert.deepEqual(redemption.kind === "ok" ? redemption.grant.scope : null, granted);
    }
  });

  it("denied, sends the client access_denied with its state and iss, and no code", async () => {
    const owner = await signIn();
    const page = await consentPage(owner);
    const ticket = String((page.body.values as Record<string, unknown>).ticket);
    const denied = await answer({ _csrf: owner.csrf, ticket, decision: "deny", scope: "create" }, owner);
    assert.equal(denied.status, 303);
    assert.ok(denied.location?.startsWith(`${clientOrigin}/callback?`));
    assert.deepEqual(params(denied.location), {
      error: "access_denied",
      error_description: "The owner declined",
      state: "the-state",
      iss: issuer,
    });
  });

  it("is refused without a session, without its CSRF token, from another site, malformed, or with another session's ticket", async () => {
    const owner = await signIn();
    const page = await consentPage(owner);
    const ticket = String((page.body.values as Record<string, unknown>).ticket);
    const fields = { _csrf: owner.csrf, ticket, decision: "approve", scope: "create" };
    const refused = async (
      sent: Promise<{ status: number; location: string | null; body: Record<string, unknown> }>,
      status: number,
      error: string,
      description: string,
    ) => {
      const result = await sent;
      assert.equal(result.status, status, description);
      assert.equal(result.location, null);
      assert.deepEqual(result.body, { error, error_description: description });
    };
    await refused(answer(fields), 403, "forbidden", "Sign in first, then answer the client's request again");
    const expired = "This form has expired or was sent from another site. Reload the page and try again.";
    await refused(answer({ ...fields, _csrf: "x".repeat(32) }, owner), 403, "forbidden", expired);
    await refused(answer(fields, owner, { origin: "https://attacker.example" }), 403, "forbidden", expired);
    await refused(
      answer({ ...fields, decision: "maybe" }, owner),
      400,
      "invalid_request",
      "The consent form's decision is not valid",
    );
    await refused(
      answer({ _csrf: owner.csrf, decision: "approve" }, owner),
      400,
      "invalid_request",
      "The consent form's ticket is missing",
    );
    const other = await signIn();
    await refused(
      answer({ ...fields, _csrf: other.csrf }, other),
      400,
      "invalid_request",
      "This consent page has expired; ask the client to sign in again",
    );
    // The same answer from the session it was shown to is taken.
    assert.equal((await answer(fields, owner)).status, 303);
  });
});

describe("a code redeemed at the authorization endpoint", () => {
  async function code(owner: { cookie: string; csrf: string }) {
    const page = await consentPage(owner);
    const ticket = String((page.body.values as Record<string, unknown>).ticket);
    const approved = await answer({ _csrf: owner.csrf, ticket, decision: "approve", scope: "create" }, owner);
    return params(approved.location).code ?? "";
  }
  const redeem = (fields: Record<string, string>) =>
    fetch(base, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });

  it("says who signed in, and nothing more, never cached", async () => {
    const owner = await signIn();
    const response = await redeem({
      grant_type: "authorization_code",
      code: await code(owner),
      ...verified(),
      code_verifier: VERIFIER,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.deepEqual(await response.json(), { me: ME });
  });

  it("is refused with a verifier that does not match", async () => {
    const owner = await signIn();
    const response = await redeem({
      grant_type: "authorization_code",
      code: await code(owner),
      ...verified(),
      code_verifier: "w".repeat(43),
    });
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      error: "invalid_grant",
      error_description: "code_verifier does not match the code_challenge",
    });
  });
});
