// Access tokens: JWTs signed HS256 with SECRET, carrying me, scope, client_id, an id (jti), iat and
// exp. A token without an id could not be revoked and one without exp would never end: both are refused.
import { errors, jwtVerify } from "jose";
import { z } from "zod";
import { MAX_TOKEN_LIFETIME_DAYS, type TokenClaims, TokenSigner } from "./token-signer.ts";

export type { IssueOptions, TokenClaims } from "./token-signer.ts";

const claimsSchema = z.object({
  me: z.string().min(1),
  scope: z.string(),
  client_id: z.string().min(1),
  jti: z.string().min(1).max(200),
  iat: z.number(),
  exp: z.number(),
});

export type TokenProblem =
  | "tooLong"
  | "claims"
  | "otherSite"
  | "expired"
  | "noExpiry"
  | "tooLongLived"
  | "invalid";

/** The signer, and the check of a token the server is shown. */
export class TokenIssuer extends TokenSigner {
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
      const { payload } = await jwtVerify(token, this.signingKey, {
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
      // Signed before lifetimes were bounded: its expiry may be past what the database can store.
      if (claims.data.exp - claims.data.iat > MAX_TOKEN_LIFETIME_DAYS * 86_400)
        return {
          reason: `The access token lives longer than the ${MAX_TOKEN_LIFETIME_DAYS} days this server allows; get a new one`,
          code: "tooLongLived",
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
