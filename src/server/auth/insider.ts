// Whether a request comes from someone of the house: the signed-in owner (a session cookie) or the
// holder of a valid access token of this server (Authorization: Bearer, any scope, not revoked).
// For public routes that show more to them than to a stranger (/health): never an error, never a
// redirect to the sign-in page; a credential that does not hold simply makes the request a stranger's.
import type { Request } from "express";
import type { SessionManager } from "./session.ts";
import type { TokenRegistry } from "./token-registry.ts";
import type { TokenIssuer } from "./tokens.ts";

export type InsiderCheck = (req: Request) => Promise<boolean>;

export function insiderCheck(options: {
  sessions: SessionManager;
  tokens: TokenIssuer;
  registry: TokenRegistry;
}): InsiderCheck {
  return async (req) => {
    try {
      if (await options.sessions.read(req)) return true;
      const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
      if (!token) return false;
      const verified = await options.tokens.verify(token);
      return "claims" in verified && (await options.registry.admit(verified.claims));
    } catch {
      // The database that keeps revocations does not answer: nobody is known to be an insider.
      return false;
    }
  };
}
