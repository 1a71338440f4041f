// Issuing an access token: a JWT signed HS256 with SECRET (RFC 7515's compact form: two base64url
// JSON parts and their HMAC-SHA256). Apart from the check (tokens.ts, with jose, which checks the
// algorithm, the signature in constant time, and the dates) so that `possekit token` loads neither
// zod nor jose: jose's signer alone costs 25 ms of the command's 150 ms (decision 0029: start-up).
import { createHmac, createSecretKey, type KeyObject, randomBytes } from "node:crypto";

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

/**
 * The longest a token may live: ten years. A longer expiry is past what PostgreSQL's timestamptz
 * holds (at 3,000,000 days every use of the token was a 500), and a token that outlives its owner's
 * care is one nobody revokes.
 */
export const MAX_TOKEN_LIFETIME_DAYS = 3650;

const HEADER = { alg: "HS256", typ: "JWT" };

export class TokenSigner {
  protected readonly signingKey: KeyObject;

  constructor(
    secret: string,
    protected readonly me: string,
  ) {
    // A KeyObject made once, for the signer and for jose's check (tokens.ts).
    this.signingKey = createSecretKey(Buffer.from(secret, "utf8"));
  }

  async issue(options: IssueOptions): Promise<string> {
    return (await this.mint(options)).token;
  }

  /** A new token and the claims it carries (for the registry that lists it). */
  async mint(options: IssueOptions): Promise<{ token: string; claims: TokenClaims }> {
    const days = options.lifetimeDays;
    if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_LIFETIME_DAYS)
      throw new RangeError(
        `lifetimeDays must be a whole number from 1 to ${MAX_TOKEN_LIFETIME_DAYS}, not ${days}`,
      );
    const issuedAt = Math.floor(Date.now() / 1000);
    const claims: TokenClaims = {
      me: this.me,
      scope: options.scope,
      clientId: options.clientId,
      id: options.id ?? randomBytes(16).toString("base64url"),
      issuedAt: new Date(issuedAt * 1000),
      expiresAt: new Date((issuedAt + options.lifetimeDays * 86_400) * 1000),
    };
    const token = this.sign({
      me: this.me,
      scope: options.scope.join(" "),
      client_id: options.clientId,
      jti: claims.id,
      iat: issuedAt,
      exp: issuedAt + options.lifetimeDays * 86_400,
      aud: options.audience ?? "access",
    });
    return { token, claims };
  }

  private sign(payload: Record<string, string | number>): string {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const signingInput = `${part(HEADER)}.${part(payload)}`;
    const signature = createHmac("sha256", this.signingKey).update(signingInput).digest("base64url");
    return `${signingInput}.${signature}`;
  }
}
