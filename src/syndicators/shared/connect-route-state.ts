// What every "Connect with …" route does with the owner's session and the authorization's state
// (Mastodon, Threads, LinkedIn): only the signed-in owner in a browser may connect an account; the
// callback's single-use state must be one this session began, and the service's answer goes on to
// the token exchange as the parameters it came with.
import type { NextFunction, Request, Response } from "express";
import { z } from "zod";
import { setFlash } from "../../contract/flash.ts";
import { HttpError } from "../../contract/http-error.ts";
import type { Translate } from "../../contract/i18n.ts";

/** The words of the page's language, or the keys themselves where no translator is set. */
export const translatorOf = (res: Response): Translate => {
  const t: unknown = res.locals.t;
  return typeof t === "function" ? (t as Translate) : (key) => key;
};

/** The signed-in session's id; any other credential (an access token, whatever its scopes) is refused. */
export function ownerSession(req: Request): string {
  const credential = req.auth?.credentialId ?? "";
  if (req.auth?.method !== "session" || !credential.startsWith("session:"))
    throw new HttpError(
      403,
      "forbidden",
      "Accounts are connected by the signed-in owner in a browser, not with an access token",
    ).localized("accounts.oauth.sessionOnly");
  return credential.slice("session:".length);
}

/** The router's first handler: connecting an account is the owner's act in a browser, not an API's. */
export function onlyTheOwner(req: Request, _res: Response, next: NextFunction): void {
  try {
    ownerSession(req);
    next();
  } catch (error) {
    next(error);
  }
}

/** What every service sends back to the callback; a service adds the fields of its own. */
export const callbackQuery = z.object({
  state: z.string().max(200).optional(),
  code: z.string().max(2000).optional(),
  error: z.string().max(200).optional(),
});

/** The refusal of a state that is unknown, expired, already used or another session's. */
export function stateRefused(): HttpError {
  return new HttpError(
    400,
    "invalid_request",
    "This authorization is unknown, expired or was already used: start again from the Accounts page",
  ).localized("accounts.oauth.stateRefused");
}

/** What the callback brought, once its state is taken. */
export interface TakenCallback<Kept> {
  /** What the flow kept under the state when it began. */
  kept: Kept;
  /** The state, as the service sent it back. */
  state: string;
  /** The callback's parameters, for the token exchange. */
  params: URLSearchParams;
}

/**
 * Takes the callback's state for the signed-in session: `take` hands back what was kept under it
 * (and forgets it, so a replay never works), or nothing; a query that does not parse, or a state
 * `take` does not know, is refused (400) before the service is asked anything.
 */
export async function takeCallbackState<Kept>(
  req: Request,
  query: z.ZodType<Record<string, string | undefined>>,
  take: (state: string, sessionId: string) => Promise<Kept | undefined>,
): Promise<TakenCallback<Kept>> {
  const sessionId = ownerSession(req);
  const parsed = query.safeParse(req.query);
  if (!parsed.success) throw stateRefused();
  const state = parsed.data.state ?? "";
  const kept = await take(state, sessionId);
  if (kept === undefined) throw stateRefused();
  const params = new URLSearchParams(
    Object.entries(parsed.data).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return { kept, state, params };
}

/** The owner said no on the service's page: the Accounts page says so, and nothing is connected. */
export function saidNo(res: Response, accountsPath: string, instance: string): void {
  setFlash(res, { kind: "warning", text: translatorOf(res)("accounts.oauth.denied", { instance }) });
  res.redirect(303, accountsPath);
}
