// The signed-in session: a signed, HttpOnly cookie holding a JWT with the CSRF token of the session.
// Stateless, so any instance sharing SECRET accepts it.
import { randomBytes } from "node:crypto";
import type { CookieOptions, Request, Response } from "express";
import { jwtVerify, SignJWT } from "jose";
import { z } from "zod";

export const SESSION_COOKIE = "possekit_session";
const SESSION_DAYS = 30;

const sessionSchema = z.object({ me: z.string(), csrf: z.string().min(16) });
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
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly me: string,
    private readonly secure: boolean,
  ) {
    this.key = new TextEncoder().encode(`session:${secret}`);
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
    const token = await new SignJWT({ me: this.me, csrf })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime(`${SESSION_DAYS}d`)
      .sign(this.key);
    res.cookie(SESSION_COOKIE, token, { ...this.cookieOptions(req), maxAge: SESSION_DAYS * 86_400_000 });
  }

  end(req: Request, res: Response): void {
    res.clearCookie(SESSION_COOKIE, this.cookieOptions(req));
  }

  async read(req: Request): Promise<Session | null> {
    const token = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    if (!token || token.length > 4096) return null;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"] });
      const session = sessionSchema.safeParse(payload);
      return session.success && session.data.me === this.me ? session.data : null;
    } catch {
      return null;
    }
  }
}
