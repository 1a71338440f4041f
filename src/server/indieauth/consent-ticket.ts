// The authorization request, as checked when the consent page was shown, travels to the consent
// form's answer inside a signed, short-lived ticket bound to the session: the answer needs neither
// the checks again nor any trust in hidden fields the browser could change.
import { createSecretKey, type KeyObject } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { z } from "zod";

const ticketSchema = z.object({
  client_id: z.string(),
  redirect_uri: z.string(),
  state: z.string(),
  code_challenge: z.string(),
  scope: z.array(z.string()),
  sid: z.string(),
});

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  /** The scopes asked for that this server offers. */
  scope: string[];
}

const AUDIENCE = "indieauth-consent";
const LIFETIME = "10m";

export class ConsentTickets {
  private readonly key: KeyObject;

  constructor(secret: string) {
    this.key = createSecretKey(Buffer.from(`indieauth-consent:${secret}`, "utf8"));
  }

  sign(request: AuthorizationRequest, sessionId: string): Promise<string> {
    return new SignJWT({
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      state: request.state,
      code_challenge: request.codeChallenge,
      scope: request.scope,
      sid: sessionId,
    })
      .setProtectedHeader({ alg: "HS256" })
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(LIFETIME)
      .sign(this.key);
  }

  /** The request of a ticket this session was shown, or null (forged, expired, another session's). */
  async read(ticket: string, sessionId: string): Promise<AuthorizationRequest | null> {
    try {
      const { payload } = await jwtVerify(ticket, this.key, { algorithms: ["HS256"], audience: AUDIENCE });
      const parsed = ticketSchema.safeParse(payload);
      if (!parsed.success || parsed.data.sid !== sessionId) return null;
      return {
        clientId: parsed.data.client_id,
        redirectUri: parsed.data.redirect_uri,
        state: parsed.data.state,
        codeChallenge: parsed.data.code_challenge,
        scope: parsed.data.scope,
      };
    } catch {
      return null;
    }
  }
}
