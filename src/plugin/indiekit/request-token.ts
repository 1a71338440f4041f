// Inside Indiekit, a run a request starts reads and writes back Indiekit's posts with that request's
// own token (what Indiekit's own endpoint-syndicate does), and a scheduled run with the configured
// one (the source's tokenEnv). The token is handed to the Micropub source through the request's
// asynchronous context, not through the core, which knows nothing of tokens; and only to a source
// whose endpoint is on the origin the request came to: Indiekit's token never goes to another server.
import { AsyncLocalStorage } from "node:async_hooks";
import type { NextFunction, Request } from "express";

interface RequestToken {
  token: string;
  /** Where the request came to (Indiekit's own origin, as the client reached it). */
  origin: string;
}

const current = new AsyncLocalStorage<RequestToken>();

/** Runs the rest of the request (and all the work it starts) with Indiekit's session token at hand. */
export function withIndiekitRequestToken(req: Request, next: NextFunction): void {
  const session = (req as Request & { session?: { access_token?: unknown } | null }).session;
  const token = session?.access_token;
  const host = req.get("host");
  if (typeof token !== "string" || token === "" || !host) next();
  else current.run({ token, origin: `${req.protocol}://${host}` }, () => next());
}

/**
 * The token of the request whose work this is, when `endpoint` is on the origin that request came
 * to; otherwise undefined (a scheduled run, or a Micropub server elsewhere).
 *
 * @example token: () => requestTokenFor(endpoint) ?? env[tokenEnv]
 */
export function requestTokenFor(endpoint: string): string | undefined {
  const request = current.getStore();
  if (!request) return undefined;
  try {
    return new URL(endpoint).origin === request.origin ? request.token : undefined;
  } catch {
    return undefined;
  }
}
