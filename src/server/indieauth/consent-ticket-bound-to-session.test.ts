import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactJws, hmacWith } from "../../../test/helpers/webhook-signers.ts";
import { type AuthorizationRequest, ConsentTickets } from "./consent-ticket.ts";

const SECRET = "a-server-secret-of-thirty-two-characters";
const SESSION = "session-id-of-the-owner";
const request: AuthorizationRequest = {
  clientId: "https://app.example/",
  redirectUri: "https://app.example/callback",
  state: "state-1",
  codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  scope: ["create", "media"],
};
const tickets = new ConsentTickets(SECRET);
const now = () => Math.floor(Date.now() / 1000);
/** A ticket signed with the key the server derives from SECRET, as one who knew it would make it. */
const forged = (payload: Record<string, unknown>, secret = SECRET) =>
  compactJws({ alg: "HS256" }, payload, hmacWith("sha256", `indieauth-consent:${secret}`));
const payload = (overrides: Record<string, unknown> = {}) => ({
  client_id: request.clientId,
  redirect_uri: request.redirectUri,
  state: request.state,
  code_challenge: request.codeChallenge,
  scope: request.scope,
  sid: SESSION,
  aud: "indieauth-consent",
  iat: now(),
  exp: now() + 600,
  ...overrides,
});

describe("consent tickets", () => {
  it("carry the checked request back to the session they were shown to", async () => {
    assert.deepEqual(await tickets.read(await tickets.sign(request, SESSION), SESSION), request);
    assert.deepEqual(await tickets.read(forged(payload()), SESSION), request);
  });

  it("live ten minutes", async () => {
    const ticket = await tickets.sign(request, SESSION);
    const claims = JSON.parse(Buffer.from(ticket.split(".")[1] ?? "", "base64url").toString());
    assert.equal(claims.exp - claims.iat, 600);
    assert.equal(await tickets.read(forged(payload({ iat: now() - 700, exp: now() - 100 })), SESSION), null);
  });

  it("are refused to another session, with another secret, another audience or a changed field", async () => {
    const ticket = await tickets.sign(request, SESSION);
    assert.equal(await tickets.read(ticket, "another-session"), null);
    assert.equal(await new ConsentTickets("another-secret-of-thirty-two-chars").read(ticket, SESSION), null);
    assert.equal(await tickets.read(forged(payload({ aud: "access" })), SESSION), null);
    // The server's access tokens and sessions are keyed apart: SECRET alone does not sign a ticket.
    const plain = compactJws({ alg: "HS256" }, payload(), hmacWith("sha256", SECRET));
    assert.equal(await tickets.read(plain, SESSION), null);
    const [header, , signature] = ticket.split(".");
    const changed = Buffer.from(JSON.stringify(payload({ scope: ["create", "delete"] }))).toString(
      "base64url",
    );
    assert.equal(await tickets.read(`${header}.${changed}.${signature}`, SESSION), null);
  });

  it("are refused when a field is missing or of another type", async () => {
    for (const field of ["client_id", "redirect_uri", "state", "code_challenge", "scope", "sid"]) {
      const { [field]: _, ...rest } = payload() as Record<string, unknown>;
      assert.equal(await tickets.read(forged(rest), SESSION), null, field);
    }
    assert.equal(await tickets.read(forged(payload({ scope: "create" })), SESSION), null);
  });
});
