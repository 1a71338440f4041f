// Issuing an access token: a JWT signed HS256 with SECRET. Apart from the check (tokens.ts) so that
// `possekit token` loads only jose's signer, not its whole index or zod (issue 18: start-up).
import { createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import { SignJWT } from "jose/jwt/sign";

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

export class TokenSigner {
  protected readonly signingKey: KeyObject;

  constructor(
    secret: string,
    protected readonly me: string,
  ) {
    // A KeyObject made once: jose would otherwise import the raw key again on every request.
    this.signingKey = createSecretKey(Buffer.from(secret, "utf8"));
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
      .sign(this.signingKey);
    return { token, claims };
  }
}
