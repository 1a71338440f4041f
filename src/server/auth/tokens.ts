// Access tokens: JWTs signed HS256 with SECRET, carrying me, scope, client_id, an id (jti), iat and
// exp. A token without an id could not be revoked and one without exp would never end: both are refused.
import { createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";

const claimsSchema = z.object({
  me: z.string().min(1),
  scope: z.string(),
  client_id: z.string().min(1),
  jti: z.string().min(1).max(200),
  iat: z.number(),
  exp: z.number(),
});

export interface TokenClaims {
  me: string;
  scope: string[];
  clientId: string;
  /** The token's id (jti), by which it is listed and revoked. */
  id: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface IssueOptions {
  scope: string[];
  clientId: string;
  lifetimeDays: number;
  audience?: string;
  /** A chosen id (the status page gives each session one token); random otherwise. */
  id?: string;
}

export type TokenProblem = "tooLong" | "claims" | "otherSite" | "expired" | "noExpiry" | "invalid";

export class TokenIssuer {
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly me: string,
  ) {
    // A KeyObject made once: jose would otherwise import the raw key again on every request.
    this.key = createSecretKey(Buffer.from(secret, "utf8"));
  }

  async issue(options: IssueOptions): Promise<string> {
    return (await this.mint(options)).token;
  }

  /** A new token and the claims it carries (for the registry that lists it). */
  async mint(options: IssueOptions): Promise<{ token: string; claims: TokenClaims }> {
    const issuedAt = Math.floor(Date.now() / 1000);
    const claims: TokenClaims = {
      me: this.me,
      scope: options.scope,
      clientId: options.clientId,
      id: options.id ?? randomBytes(16).toString("base64url"),
      issuedAt: new Date(issuedAt * 1000),
      expiresAt: new Date((issuedAt + options.lifetimeDays * 86_400) * 1000),
    };
    const token = await new SignJWT({
      me: this.me,
      scope: options.scope.join(" "),
      client_id: options.clientId,
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setJti(claims.id)
      .setIssuedAt(issuedAt)
      .setExpirationTime(claims.expiresAt)
      .setAudience(options.audience ?? "access")
      .sign(this.key);
    return { token, claims };
  }

  /**
   * The claims of a valid access token, or a reason it is not one (in English for API clients) and
   * its code (for a page in the reader's language: error.token.<code>).
   */
  async verify(
    token: string,
    audience = "access",
  ): Promise<{ claims: TokenClaims } | { reason: string; code: TokenProblem }> {
    if (token.length > 4096) return { reason: "The access token is too long", code: "tooLong" };
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        audience,
        requiredClaims: ["exp"],
      });
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success)
        return {
          reason:
            "The access token lacks me, scope, client_id, jti, iat or exp; get a new one from the status page",
          code: "claims",
        };
      if (claims.data.me !== this.me)
        return { reason: "The access token is for another site", code: "otherSite" };
      return {
        claims: {
          me: claims.data.me,
          scope: claims.data.scope.split(/\s+/).filter(Boolean),
          clientId: claims.data.client_id,
          id: claims.data.jti,
          issuedAt: new Date(claims.data.iat * 1000),
          expiresAt: new Date(claims.data.exp * 1000),
        },
      };
    } catch (error) {
      if (error instanceof errors.JWTExpired)
        return { reason: "The access token has expired", code: "expired" };
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === "exp")
        return { reason: "The access token never expires; tokens without exp are refused", code: "noExpiry" };
      return { reason: "The access token is not valid", code: "invalid" };
    }
  }
}
