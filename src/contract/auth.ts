// Who made a request, as the host's authentication middleware found out. Plug-in routes read
// `req.auth`; it is always set on `routes` (authenticated), never on `routesPublic`.

export type AuthMethod = "session" | "bearer" | "form" | "query";

export interface Authenticated {
  method: AuthMethod;
  /** The publication's URL the credential is for. */
  me: string;
  /** Granted scopes. A signed-in session has every scope. */
  scope: string[];
  clientId: string;
  /** Which credential: "session:<id>" or "token:<jti>". Rate limits count per credential. */
  credentialId: string;
}

declare global {
  namespace Express {
    interface Request {
      auth?: Authenticated;
      /** Set for a signed-in session: the CSRF token forms and htmx must send back. */
      csrfToken?: string;
    }
  }
}

export function hasScope(auth: Authenticated | undefined, scope: string): boolean {
  return !!auth && (auth.method === "session" || auth.scope.includes(scope));
}
