// The signed-in session's cookie: what it is set with, which cookies are read back as a session, and
// that signing out ends it for good. The real SessionManager and in-memory revocations; a request is
// only its Cookie header and whether it came over TLS, a response only what it sets.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CookieOptions, Request, Response } from "express";
import { SignJWT } from "jose";
import { parseCookies, SESSION_COOKIE, SessionManager } from "./session.ts";
import { sessionRevocations } from "./session-revocations.ts";
import { TokenIssuer } from "./tokens.ts";

const SECRET = "a-server-secret-of-thirty-two-characters";
const ME = "https://me.example/";
const DAY_MS = 86_400_000;

const request = (cookie?: string, secure = false) =>
  ({ headers: cookie === undefined ? {} : { cookie }, secure }) as unknown as Request;

interface Set {
  name: string;
  value?: string;
  options: CookieOptions;
}
function response() {
  const set: Set[] = [];
  const cleared: Set[] = [];
  const res = {
    cookie(name: string, value: string, options: CookieOptions) {
      set.push({ name, value, options });
      return res;
    },
    clearCookie(name: string, options: CookieOptions) {
      cleared.push({ name, options });
      return res;
    },
  };
  return { res: res as unknown as Response, set, cleared };
}

const manager = (secure = false, me = ME) => new SessionManager(SECRET, me, secure, sessionRevocations(null));

async function started(sessions = manager(), secure = false) {
  const { res, set } = response();
  await sessions.start(request(undefined, secure), res);
  assert.equal(set.length, 1);
  const cookie = set[0] as Set;
  return { cookie, header: `${SESSION_COOKIE}=${cookie.value}` };
}

/** A cookie signed with the session key, as only a holder of SECRET could make it. */
const forged = (claims: Record<string, unknown>, alg = "HS256", secret = `session:${SECRET}`) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg })
    .setIssuedAt()
    .setExpirationTime("1d")
    .sign(new TextEncoder().encode(secret));
const GOOD = { me: ME, csrf: "c".repeat(16), sid: "s".repeat(16) };

describe("parseCookies", () => {
  it("reads each name=value pair, trimmed and URL-decoded, and skips what is not one", () => {
    const cookies = parseCookies("a=1; b = x%20y ;=nameless; flag; c=d=e;bad=%E0%A4%A; last=ok");
    assert.deepEqual(
      [...cookies],
      [
        ["a", "1"],
        ["b", "x y"],
        ["c", "d=e"],
        ["last", "ok"],
      ],
    );
    assert.equal(parseCookies(undefined).size, 0);
    assert.equal(parseCookies("").size, 0);
  });
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, for the whole site, kept 30 days, and Secure when asked or over TLS", async () => {
    const { cookie } = await started();
    assert.equal(cookie.name, SESSION_COOKIE);
    assert.deepEqual(cookie.options, {
      httpOnly: true,
      sameSite: "lax",
      secure: false,
      path: "/",
      maxAge: 30 * DAY_MS,
    });
    assert.equal((await started(manager(true))).cookie.options.secure, true, "SECURE_COOKIES");
    assert.equal((await started(manager(false), true)).cookie.options.secure, true, "a TLS request");
  });

  it("is read back as the owner's session with a CSRF token and an id, new for each sign-in", async () => {
    const sessions = manager();
    const first = await started(sessions);
    const session = await sessions.read(request(`other=1; ${first.header}`));
    assert.ok(session);
    assert.equal(session.me, ME);
    assert.match(session.csrf, /^[\w-]{32}$/, "24 random bytes");
    assert.match(session.sid, /^[\w-]{24}$/, "18 random bytes");
    const expiresIn = session.exp * 1000 - Date.now();
    assert.ok(expiresIn > 30 * DAY_MS - 60_000 && expiresIn <= 30 * DAY_MS, String(expiresIn));
    const second = await sessions.read(request((await started(sessions)).header));
    assert.notEqual(second?.csrf, session.csrf);
    assert.notEqual(second?.sid, session.sid);
  });

  it("is not a session without the cookie, or when forged, altered, another site's or malformed", async () => {
    const sessions = manager();
    const { header } = await started(sessions);
    assert.equal(await sessions.read(request()), null);
    assert.equal(await sessions.read(request("theme=dark")), null);
    assert.equal(await sessions.read(request(`${header}x`)), null, "signature altered");
    assert.equal((await sessions.read(request(header))) !== null, true);
    assert.equal(await manager(false, "https://other.example/").read(request(header)), null, "another me");
    const other = new SessionManager(
      "another-secret-of-thirty-two-chars!!",
      ME,
      false,
      sessionRevocations(null),
    );
    assert.equal(await other.read(request(header)), null, "another SECRET");
    const cookieOf = async (token: Promise<string>) => request(`${SESSION_COOKIE}=${await token}`);
    assert.ok(await sessions.read(await cookieOf(forged(GOOD))), "the forger's helper makes good cookies");
    assert.equal(await sessions.read(await cookieOf(forged(GOOD, "HS512"))), null, "HS256 only");
    assert.equal(await sessions.read(await cookieOf(forged(GOOD, "HS256", SECRET))), null, "the token key");
    for (const bad of [
      { ...GOOD, csrf: "c".repeat(15) },
      { ...GOOD, sid: "s".repeat(15) },
      { ...GOOD, me: undefined },
      { ...GOOD, me: 7 },
    ])
      assert.equal(await sessions.read(await cookieOf(forged(bad))), null, JSON.stringify(bad));
    const expired = new SignJWT(GOOD)
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(new TextEncoder().encode(`session:${SECRET}`));
    assert.equal(await sessions.read(await cookieOf(expired)), null, "expired");
    const endless = new SignJWT(GOOD)
      .setProtectedHeader({ alg: "HS256" })
      .sign(new TextEncoder().encode(`session:${SECRET}`));
    assert.equal(await sessions.read(await cookieOf(endless)), null, "no exp");
  });

  it("is an access token never, nor an access token a session", async () => {
    const tokens = new TokenIssuer(SECRET, ME);
    const token = await tokens.issue({ scope: ["create"], clientId: "x", lifetimeDays: 1 });
    assert.equal(await manager().read(request(`${SESSION_COOKIE}=${token}`)), null);
    const { cookie } = await started();
    assert.ok("code" in (await tokens.verify(cookie.value ?? "")));
  });

  it("is read up to 4096 characters, and a longer cookie is no session at all", async () => {
    const sessions = manager();
    const ofLength = async (length: number) => {
      for (let pad = 2900; pad < 3100; pad++) {
        const token = await forged({ ...GOOD, pad: "p".repeat(pad) });
        if (token.length === length) return token;
      }
      throw new Error(`no token of ${length} characters`);
    };
    assert.ok(await sessions.read(request(`${SESSION_COOKIE}=${await ofLength(4096)}`)));
    assert.equal(await sessions.read(request(`${SESSION_COOKIE}=${await ofLength(4097)}`)), null);
  });

  it("ends for good when signed out: the same cookie is refused and cleared as it was set", async () => {
    const sessions = manager();
    const { header, cookie } = await started(sessions);
    const copy = await started(sessions);
    const { res, cleared } = response();
    await sessions.end(request(header), res);
    assert.equal(await sessions.read(request(header)), null, "a copy of the cookie no longer works");
    assert.ok(await sessions.read(request(copy.header)), "another sign-in is another session");
    const { maxAge: _maxAge, ...options } = cookie.options;
    assert.deepEqual(cleared, [{ name: SESSION_COOKIE, options }]);
    const again = response();
    await sessions.end(request(), again.res);
    assert.equal(again.cleared.length, 1, "signing out without a session still clears the cookie");
  });
});

describe("the sessions signed out, without a database", () => {
  it("are remembered until the cookie would have expired, and no longer", async () => {
    const revocations = sessionRevocations(null);
    await revocations.revoke("ended", new Date(Date.now() + DAY_MS));
    await revocations.revoke("long-gone", new Date(Date.now() - 1000));
    assert.equal(await revocations.isRevoked("ended"), true);
    assert.equal(await revocations.isRevoked("long-gone"), false, "its cookie has expired anyway");
    assert.equal(await revocations.isRevoked("never-ended"), false);
  });
});
