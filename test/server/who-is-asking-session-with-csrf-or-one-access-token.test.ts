// Who is asking, as the host's authenticate middleware decides it: a session (with its CSRF token on
// changes, and our own Origin when one is sent) or an access token sent one way (header, form field
// or query), in that order. A real Express app on 127.0.0.1 with the host's body parsers, the real
// session manager, token issuer and in-memory registry; the routes behind it are tested beside this.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import express, { type NextFunction, type Request, type Response } from "express";
import { HttpError } from "../../src/contract/http-error.ts";
import { authenticate } from "../../src/server/auth/authenticate.ts";
import { SESSION_COOKIE, SessionManager } from "../../src/server/auth/session.ts";
import { sessionRevocations } from "../../src/server/auth/session-revocations.ts";
import { tokenRegistry } from "../../src/server/auth/token-registry.ts";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";

const SECRET = "a-server-secret-of-thirty-two-characters";
const ME = "https://me.example/";
const BASE = "https://posse.example/sub/";
const ALL_SCOPES = ["create", "update", "delete", "draft", "media"];

const tokens = new TokenIssuer(SECRET, ME);
const registry = tokenRegistry(null);
const sessions = new SessionManager(SECRET, ME, false, sessionRevocations(null));

const app = express();
app.use(express.urlencoded({ extended: true }));
app.use(express.json());
app.post("/start", (req, res, next) => {
  sessions.start(req, res).then(() => res.end(), next);
});
app.use(authenticate({ sessions, tokens, registry, baseUrl: BASE }));
app.all("/{*path}", (req: Request, res: Response) => {
  res.json({ auth: req.auth, csrf: req.csrfToken ?? null, body: req.body ?? null });
});
app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
  assert.ok(error instanceof HttpError, String(error));
  res.status(error.status).json({
    error: error.error,
    description: error.description,
    key: error.pageMessage?.key ?? null,
  });
});

let server: ReturnType<typeof app.listen>;
let origin = "";
before(async () => {
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

interface Answer {
  status: number;
  location: string | null;
  auth?: Record<string, unknown>;
  csrf?: string | null;
  body?: Record<string, unknown> | null;
  error?: string;
  description?: string;
  key?: string | null;
}

async function ask(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${origin}${path}`, { redirect: "manual", ...init });
  const location = response.headers.get("location");
  const text = await response.text();
  return { status: response.status, location, ...(text.startsWith("{") ? JSON.parse(text) : {}) };
}
const form = (fields: string, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: fields,
});

/** A signed-in browser: its cookie header and the session's CSRF token. */
async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const started = await fetch(`${origin}/start`, { method: "POST" });
  const cookie = (started.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  assert.ok(cookie.startsWith(`${SESSION_COOKIE}=`), cookie);
  const read = await ask("/whoami", { headers: { cookie } });
  assert.equal(typeof read.csrf, "string");
  return { cookie, csrf: read.csrf as string };
}

async function accessToken(id: string, scope = ["create", "media"]) {
  return tokens.issue({ scope, clientId: "https://app.example/", lifetimeDays: 1, id });
}

describe("authenticate: an access token, sent one way", () => {
  it("reads a Bearer header, in any case of the scheme and with spaces after it", async () => {
    const token = await accessToken("bearer-1");
    for (const header of [`Bearer ${token}`, `bearer   ${token}  `, `BEARER\t${token}`]) {
      const answer = await ask("/micropub", { headers: { authorization: header } });
      assert.equal(answer.status, 200, header);
      assert.deepEqual(answer.auth, {
        method: "bearer",
        me: ME,
        scope: ["create", "media"],
        clientId: "https://app.example/",
        credentialId: "token:bearer-1",
      });
      assert.equal(answer.csrf, null, "no session, no CSRF token");
    }
  });

  it("refuses a Bearer header without exactly one token", async () => {
    const token = await accessToken("bearer-2");
    for (const header of [
      "Bearer",
      "Bearer ",
      `Bearer ${token} extra`,
      `Bearer ${token} ${token}`,
      `Bearer Bearer ${token}`,
    ]) {
      const answer = await ask("/micropub", { headers: { authorization: header } });
      assert.equal(answer.status, 401, header);
      assert.equal(answer.error, "unauthorized");
      assert.equal(answer.description, 'The Authorization header must be "Bearer <access token>"');
    }
  });

  it("leaves another scheme alone (a proxy's Basic) and reads the token from the form or query", async () => {
    const token = await accessToken("behind-proxy");
    const basic = { authorization: "Basic dXNlcjpwYXNz" };
    const fromForm = await ask("/micropub", form(`access_token=${token}&h=entry`, basic));
    assert.equal(fromForm.status, 200);
    assert.equal(fromForm.auth?.method, "form");
    const fromQuery = await ask(`/micropub?token=${token}`, { headers: basic });
    assert.equal(fromQuery.auth?.method, "query");
    // A scheme whose name only starts with "Bearer" is another scheme.
    const other = await ask(`/micropub?token=${token}`, { headers: { authorization: `Bearerish ${token}` } });
    assert.equal(other.status, 200);
    assert.equal(other.auth?.method, "query");
    // So is a scheme that only names "Bearer" after its own name.
    const later = await ask(`/micropub?token=${token}`, {
      headers: { authorization: `Custom Bearer ${token}` },
    });
    assert.equal(later.status, 200);
    assert.equal(later.auth?.method, "query");
    const none = await ask("/micropub", { headers: basic });
    assert.equal(none.status, 401);
    assert.match(none.description ?? "", /^Sign in, or send an access token/);
  });

  it("takes the form field access_token, and never hands the token on in the body", async () => {
    const token = await accessToken("form-1");
    const answer = await ask("/micropub", form(`h=entry&access_token=${token}&content=hi`));
    assert.equal(answer.status, 200);
    assert.equal(answer.auth?.method, "form");
    assert.equal(answer.auth?.credentialId, "token:form-1");
    assert.deepEqual(answer.body, { h: "entry", content: "hi" });
  });

  it("refuses an access_token field that is empty or given twice", async () => {
    const token = await accessToken("form-2");
    for (const fields of ["access_token=", `access_token=${token}&access_token=${token}`]) {
      const answer = await ask("/micropub", form(fields));
      assert.equal(answer.status, 401, fields);
      assert.equal(answer.description, "The form field access_token must be one token");
    }
  });

  it("refuses a token sent twice, in the header and in the form", async () => {
    const token = await accessToken("twice");
    const answer = await ask(
      "/micropub",
      form(`access_token=${token}`, { authorization: `Bearer ${token}` }),
    );
    assert.equal(answer.status, 400);
    assert.equal(answer.error, "invalid_request");
    assert.equal(
      answer.description,
      "Send the access token once: in the Authorization header or in access_token, not both",
    );
  });

  it("reads access_token only from a form: in JSON it is neither a credential nor kept", async () => {
    const token = await accessToken("json-1");
    const json = (headers: Record<string, string>) => ({
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ type: ["h-entry"], access_token: token }),
    });
    const alone = await ask("/micropub", json({}));
    assert.equal(alone.status, 401);
    assert.match(alone.description ?? "", /^Sign in, or send an access token/);
    const withHeader = await ask("/micropub", json({ authorization: `Bearer ${token}` }));
    assert.equal(withHeader.status, 200, "a header beside a JSON body is the one way it was sent");
    assert.equal(withHeader.auth?.method, "bearer");
    assert.deepEqual(withHeader.body, { type: ["h-entry"] });
  });

  it("takes the query parameter token, and refuses it empty or twice", async () => {
    const token = await accessToken("query-1");
    const answer = await ask(`/micropub?q=config&token=${token}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.auth?.method, "query");
    assert.equal(answer.auth?.credentialId, "token:query-1");
    for (const query of ["token=", `token=${token}&token=${token}`]) {
      const refused = await ask(`/micropub?${query}`);
      assert.equal(refused.status, 401, query);
      assert.equal(refused.description, "The query parameter token must be one token");
    }
  });

  it("refuses a token that does not verify, with the issuer's reason, and a revoked one", async () => {
    const forged = await new TokenIssuer("another-secret-of-thirty-two-characters", ME).issue({
      scope: ["create"],
      clientId: "https://app.example/",
      lifetimeDays: 1,
    });
    const invalid = await ask("/micropub", { headers: { authorization: `Bearer ${forged}` } });
    assert.equal(invalid.status, 401);
    assert.equal(invalid.description, "The access token is not valid");
    assert.equal(invalid.key, "error.token.invalid");

    const token = await accessToken("revoked-1");
    assert.equal((await ask("/micropub", { headers: { authorization: `Bearer ${token}` } })).status, 200);
    await registry.revoke("revoked-1");
    const revoked = await ask("/micropub", { headers: { authorization: `Bearer ${token}` } });
    assert.equal(revoked.status, 401);
    assert.equal(revoked.description, "The access token has been revoked");
    assert.equal(revoked.key, "error.token.revoked");
  });

  it("sends a browser with no credential to sign in, back to where it was going; others get 401", async () => {
    const page = await ask("/status/tokens?tab=a b", { headers: { accept: "text/html" } });
    assert.equal(page.status, 303);
    assert.equal(page.location, `/session/login?redirect=${encodeURIComponent("/status/tokens?tab=a%20b")}`);
    const head = await fetch(`${origin}/status`, {
      method: "HEAD",
      headers: { accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(head.status, 303);
    const post = await ask("/status", {
      ...form("x=1"),
      headers: { ...form("x=1").headers, accept: "text/html" },
    });
    assert.equal(post.status, 401, "a change is not redirected: its body would be lost");
    const api = await ask("/status", { headers: { accept: "application/json" } });
    assert.equal(api.status, 401);
    assert.equal(
      api.description,
      "Sign in, or send an access token (Authorization: Bearer, access_token or token)",
    );
  });
});

describe("authenticate: a session, and its CSRF token on changes", () => {
  it("admits a session on a safe method with every scope, and tells the page its CSRF token", async () => {
    const { cookie, csrf } = await signIn();
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      const answer = await fetch(`${origin}/status`, { method, headers: { cookie } });
      assert.equal(answer.status, 200, method);
    }
    const answer = await ask("/status", { headers: { cookie } });
    assert.equal(answer.auth?.method, "session");
    assert.equal(answer.auth?.me, ME);
    assert.deepEqual(answer.auth?.scope, ALL_SCOPES);
    assert.equal(answer.auth?.clientId, "session");
    assert.match(String(answer.auth?.credentialId), /^session:[\w-]{16,}$/);
    assert.equal(answer.csrf, csrf);
  });

  it("admits a change that carries the CSRF token in the header or the form field", async () => {
    const { cookie, csrf } = await signIn();
    const byHeader = await ask("/status", form("x=1", { cookie, "x-csrf-token": csrf }));
    assert.equal(byHeader.status, 200);
    assert.equal(byHeader.auth?.method, "session");
    const byField = await ask("/status", form(`x=1&_csrf=${csrf}`, { cookie }));
    assert.equal(byField.status, 200);
    assert.equal(byField.auth?.method, "session");
    // A body no parser read (plain text) has no field: the header alone carries the token.
    const plain = await ask("/status", {
      method: "POST",
      headers: { cookie, "content-type": "text/plain", "x-csrf-token": csrf },
      body: "x",
    });
    assert.equal(plain.status, 200);
    assert.equal(plain.auth?.method, "session");
  });

  it("refuses a change without the CSRF token, with a wrong one, or with it only in the query", async () => {
    const { cookie, csrf } = await signIn();
    const cases: [string, RequestInit][] = [
      ["none", form("x=1", { cookie })],
      ["wrong header", form("x=1", { cookie, "x-csrf-token": `${csrf}x` })],
      ["wrong field", form("_csrf=nope", { cookie })],
      // Sent twice, the field is a list: refused, never compared as one.
      ["field twice", form(`_csrf=${csrf}&_csrf=${csrf}`, { cookie })],
      // The header is the one read when both are sent.
      ["wrong header, right field", form(`_csrf=${csrf}`, { cookie, "x-csrf-token": "nope" })],
      ["query of a form", { ...form("x=1", { cookie }) }],
    ];
    for (const [name, init] of cases) {
      const path = name === "query of a form" ? `/status?_csrf=${csrf}` : "/status";
      const answer = await ask(path, init);
      assert.equal(answer.status, 403, name);
      assert.equal(answer.error, "forbidden");
      assert.equal(
        answer.description,
        "This form has expired or was sent from another site. Reload the page and try again.",
      );
      assert.equal(answer.key, "error.formExpired");
    }
  });

  it("reads the CSRF token of a multipart form from its query, not its body", async () => {
    const { cookie, csrf } = await signIn();
    const multipart = () => {
      const body = new FormData();
      body.set("_csrf", csrf);
      return { method: "POST", headers: { cookie }, body };
    };
    assert.equal((await ask(`/compose?_csrf=${csrf}`, multipart())).status, 200);
    assert.equal((await ask("/compose", multipart())).status, 403);
  });

  it("refuses a change from another Origin, and admits our own or the request's own host", async () => {
    const { cookie, csrf } = await signIn();
    const send = (sentOrigin: string) =>
      ask("/status", form("x=1", { cookie, "x-csrf-token": csrf, origin: sentOrigin }));
    assert.equal((await send("https://evil.example")).status, 403);
    assert.equal((await send("https://posse.example")).status, 200, "the base URL's origin");
    assert.equal((await send(origin)).status, 200, "the host the request came to");
    assert.equal((await send("http://127.0.0.2:1")).status, 403);
  });

  it("puts the session first: a malformed token beside it is not read on a safe method", async () => {
    const { cookie } = await signIn();
    const answer = await ask("/status", { headers: { cookie, authorization: "Bearer" } });
    assert.equal(answer.status, 200);
    assert.equal(answer.auth?.method, "session");
    const query = await ask("/status?token=", { headers: { cookie } });
    assert.equal(query.auth?.method, "session");
  });

  it("lets a token carry a change the session's CSRF check refused, and still tells the CSRF token", async () => {
    const { cookie, csrf } = await signIn();
    const token = await accessToken("with-session");
    const answer = await ask("/status", form("x=1", { cookie, authorization: `Bearer ${token}` }));
    assert.equal(answer.status, 200);
    assert.equal(answer.auth?.method, "bearer");
    assert.equal(answer.auth?.credentialId, "token:with-session");
    assert.equal(answer.csrf, csrf);
    const malformed = await ask("/status", form("x=1", { cookie, authorization: "Bearer" }));
    assert.equal(malformed.status, 401, "a failed CSRF check leaves the malformed token to answer");
  });
});
