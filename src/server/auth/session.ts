// The signed-in session: a signed, HttpOnly cookie holding a JWT with the CSRF token of the session.
// Stateless, so any instance sharing SECRET accepts it.
import { createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import type { CookieOptions, Request, Response } from "express";
import { jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import type { SessionRevocations } from "./session-revocations.ts";

export const SESSION_COOKIE = "possekit_session";
const SESSION_DAYS = 30;

const sessionSchema = z.object({
  me: z.string(),
  csrf: z.string().min(16),
  /** The session's id, by which signing out ends it on every instance. */
  sid: z.string().min(16),
  exp: z.number(),
});
export type Session = z.infer<typeof sessionSchema>;

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 1) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    try {
      cookies.set(name, decodeURIComponent(value));
    } catch {
      // A malformed cookie value is ignored rather than failing the request.
    }
  }
  return cookies;
}

export class SessionManager {
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly me: string,
    private readonly secure: boolean,
    private readonly revocations: SessionRevocations,
  ) {
    // A KeyObject made once: jose would otherwise import the raw key again on every request.
    this.key = createSecretKey(Buffer.from(`session:${secret}`, "utf8"));
  }

  private cookieOptions(req: Request): CookieOptions {
    return {
      httpOnly: true,
      sameSite: "lax",
      secure: this.secure || req.secure,
      path: "/",
    };
  }

  async start(req: Request, res: Response): Promise<void> {
    const csrf = randomBytes(24).toString("base64url");
    const sid = randomBytes(18).toString("base64url");
    const token = await new SignJWT({ me: this.me, csrf, sid })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime(`${SESSION_DAYS}d`)
      .sign(this.key);
    res.cookie(SESSION_COOKIE, token, { ...this.cookieOptions(req), maxAge: SESSION_DAYS * 86_400_000 });
  }

  /** Ends the session for good (a copy of the cookie no longer works) and clears it in the browser. */
  async end(req: Request, res: Response): Promise<void> {
    const session = await this.read(req);
    if (session) await this.revocations.revoke(session.sid, new Date(session.exp * 1000));
    res.clearCookie(SESSION_COOKIE, this.cookieOptions(req));
  }

  async read(req: Request): Promise<Session | null> {
    const token = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    if (!token || token.length > 4096) return null;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"] });
      const session = sessionSchema.safeParse(payload);
      if (!session.success || session.data.me !== this.me) return null;
      return (await this.revocations.isRevoked(session.data.sid)) ? null : session.data;
    } catch {
      return null;
    }
  }
}
