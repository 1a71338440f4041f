// Access tokens: JWTs signed HS256 with SECRET, carrying me, scope, client_id, iat and exp.
import { createSecretKey, type KeyObject } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";

const claimsSchema = z.object({
  me: z.string().min(1),
  scope: z.string(),
  client_id: z.string().min(1),
});

export interface TokenClaims {
  me: string;
  scope: string[];
  clientId: string;
}

export class TokenIssuer {
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly me: string,
  ) {
    // A KeyObject made once: jose would otherwise import the raw key again on every request.
    this.key = createSecretKey(Buffer.from(secret, "utf8"));
  }

  issue(options: {
    scope: string[];
    clientId: string;
    lifetimeDays: number;
    audience?: string;
  }): Promise<string> {
    return new SignJWT({ me: this.me, scope: options.scope.join(" "), client_id: options.clientId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt()
      .setExpirationTime(`${options.lifetimeDays}d`)
      .setAudience(options.audience ?? "access")
      .sign(this.key);
  }

  /** The claims of a valid access token, or a reason it is not one. */
  async verify(token: string, audience = "access"): Promise<{ claims: TokenClaims } | { reason: string }> {
    if (token.length > 4096) return { reason: "The access token is too long" };
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"], audience });
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success) return { reason: "The access token lacks me, scope or client_id" };
      if (claims.data.me !== this.me) return { reason: "The access token is for another site" };
      return {
        claims: {
          me: claims.data.me,
          scope: claims.data.scope.split(/\s+/).filter(Boolean),
          clientId: claims.data.client_id,
        },
      };
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { reason: "The access token has expired" };
      return { reason: "The access token is not valid" };
    }
  }
}
