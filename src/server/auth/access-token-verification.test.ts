import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactJws, hmacWith } from "../../../test/helpers/webhook-signers.ts";
import { TokenIssuer } from "./tokens.ts";

const SECRET = "a-server-secret-of-thirty-two-characters";
const ME = "https://me.example/";
const DAY = 86_400;

const issuer = new TokenIssuer(SECRET, ME);
const now = () => Math.floor(Date.now() / 1000);
/** A token signed HS256 with these claims, as a forger holding (or not) the secret would make it. */
const signed = (claims: Record<string, unknown>, secret = SECRET, header: Record<string, unknown> = {}) =>
  compactJws({ alg: "HS256", typ: "JWT", ...header }, claims, hmacWith("sha256", secret));
const claims = (overrides: Record<string, unknown> = {}) => ({
  me: ME,
  scope: "create",
  client_id: "https://app.example/",
  jti: "token-1",
  iat: now(),
  exp: now() + DAY,
  aud: "access",
  ...overrides,
});
/** What an API client reads for each refusal (error_description): what is wrong, and what to do. */
const REASONS: Record<string, RegExp> = {
  tooLong: /^The access token is too long$/,
  claims:
    /^The access token lacks me, scope, client_id, jti, iat or exp; get a new one from the status page$/,
  otherSite: /^The access token is for another site$/,
  expired: /^The access token has expired$/,
  noExpiry: /^The access token never expires; tokens without exp are refused$/,
  tooLongLived: /^The access token lives longer than the 3650 days this server allows; get a new one$/,
  invalid: /^The access token is not valid$/,
};
const problem = async (token: string, audience?: string) => {
  const verified = await issuer.verify(token, audience);
  assert.ok("code" in verified, `expected a refusal, got ${JSON.stringify(verified)}`);
  assert.match(verified.reason, REASONS[verified.code] ?? /^$/);
  return verified.code;
};

describe("access tokens: issued, then checked", () => {
  it("carries me, the scopes, the client, its id and its dates", async () => {
    const before = now();
    const { token, claims: minted } = await issuer.mint({
      scope: ["create", "update"],
      clientId: "https://app.example/",
      lifetimeDays: 7,
      id: "chosen-id",
    });
    const verified = await issuer.verify(token);
    assert.ok("claims" in verified);
    assert.deepEqual(verified.claims, minted);
    assert.equal(minted.me, ME);
    assert.deepEqual(minted.scope, ["create", "update"]);
    assert.equal(minted.clientId, "https://app.example/");
    assert.equal(minted.id, "chosen-id");
    const issuedAt = minted.issuedAt.getTime() / 1000;
    assert.ok(issuedAt >= before && issuedAt <= now(), "issued now, in whole seconds");
    assert.equal(minted.expiresAt.getTime() - minted.issuedAt.getTime(), 7 * DAY * 1000);
    // A JWT any other verifier reads as one (RFC 7519 §5.1): the header names its type too.
    const header = JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8"));
    assert.deepEqual(header, { alg: "HS256", typ: "JWT" });
  });

  it("gives each token a random id of its own unless one is chosen", async () => {
    const options = { scope: ["create"], clientId: "c", lifetimeDays: 1 };
    const [a, b] = await Promise.all([issuer.mint(options), issuer.mint(options)]);
    assert.notEqual(a.claims.id, b.claims.id);
    assert.match(a.claims.id, /^[A-Za-z0-9_-]{22}$/);
  });

  it("lives from 1 to 3650 whole days, and refuses any other lifetime", async () => {
    for (const lifetimeDays of [1, 3650]) {
      const verified = await issuer.verify(await issuer.issue({ scope: [], clientId: "c", lifetimeDays }));
      assert.ok("claims" in verified, `${lifetimeDays} days`);
    }
    for (const lifetimeDays of [0, -1, 3651, 1.5, Number.NaN])
      await assert.rejects(
        issuer.issue({ scope: [], clientId: "c", lifetimeDays }),
        (error: Error) => error instanceof RangeError && error.message.includes(`not ${lifetimeDays}`),
      );
  });

  it("is for one audience: an access token is not a token of another kind, nor the reverse", async () => {
    const access = await issuer.issue({ scope: ["create"], clientId: "c", lifetimeDays: 1 });
    assert.equal(await problem(access, "status"), "invalid");
    const status = await issuer.issue({
      scope: ["create"],
      clientId: "c",
      lifetimeDays: 1,
      audience: "status",
    });
    assert.equal(await problem(status), "invalid");
    assert.ok("claims" in (await issuer.verify(status, "status")));
  });

  it("refuses a token signed with another secret, with another algorithm, or unsigned", async () => {
    assert.equal(await problem(signed(claims(), "another-secret-entirely-0123456789")), "invalid");
    const hs512 = compactJws({ alg: "HS512", typ: "JWT" }, claims(), hmacWith("sha512", SECRET));
    assert.equal(await problem(hs512), "invalid");
    const [header, payload] = signed(claims(), SECRET, { alg: "none" }).split(".");
    assert.equal(await problem(`${header}.${payload}.`), "invalid");
    assert.equal(await problem("not a token"), "invalid");
  });

  it("refuses a token for another site signed with this secret", async () => {
    assert.equal(await problem(signed(claims({ me: "https://other.example/" }))), "otherSite");
    assert.ok("claims" in (await issuer.verify(signed(claims()))));
  });

  it("refuses an expired token and one that never expires", async () => {
    assert.equal(await problem(signed(claims({ iat: now() - 2 * DAY, exp: now() - DAY }))), "expired");
    const { exp: _, ...noExpiry } = claims();
    assert.equal(await problem(signed(noExpiry)), "noExpiry");
  });

  it("refuses a token that lacks a claim or whose id is empty or over 200 characters", async () => {
    for (const missing of ["me", "scope", "client_id", "jti", "iat"]) {
      const { [missing]: _, ...rest } = claims() as Record<string, unknown>;
      assert.equal(await problem(signed(rest)), "claims", missing);
    }
    assert.equal(await problem(signed(claims({ jti: "" }))), "claims");
    assert.equal(await problem(signed(claims({ me: "" }))), "claims");
    assert.equal(await problem(signed(claims({ client_id: "" }))), "claims");
    assert.equal(await problem(signed(claims({ jti: "j".repeat(201) }))), "claims");
    assert.ok("claims" in (await issuer.verify(signed(claims({ jti: "j".repeat(200) })))));
  });

  it("refuses a token signed to live longer than 3650 days, and accepts one of exactly 3650", async () => {
    const iat = now();
    assert.equal(await problem(signed(claims({ iat, exp: iat + 3650 * DAY + 1 }))), "tooLongLived");
    assert.ok("claims" in (await issuer.verify(signed(claims({ iat, exp: iat + 3650 * DAY })))));
  });

  it("reads the scope at any run of white space", async () => {
    const verified = await issuer.verify(signed(claims({ scope: " create  update\tmedia " })));
    assert.ok("claims" in verified);
    assert.deepEqual(verified.claims.scope, ["create", "update", "media"]);
  });

  it("refuses a token over 4096 characters without reading it, and reads one of exactly 4096", async () => {
    // The client_id's length sets the token's; base64url skips some lengths, so look for one that fits.
    const sized = (length: number) => {
      for (let pad = 0; pad < 4096; pad += 1) {
        const token = signed(claims({ client_id: `c${"x".repeat(pad)}` }));
        if (token.length === length) return token;
        if (token.length > length) break;
      }
      throw new Error(`no token of ${length} characters`);
    };
    assert.ok("claims" in (await issuer.verify(sized(4096))));
    const longer = sized(4097);
    const verified = await issuer.verify(longer);
    assert.deepEqual(verified, { reason: "The access token is too long", code: "tooLong" });
  });
});
