// The routes of "Connect with Threads", under {mountPath}/accounts/threads: POST …/app keeps the
// owner's Meta app (asked once; sealed, never shown again), POST …/authorize sends the browser to
// Threads' Authorization Window, GET …/callback takes the code back, obtains a 60-day token and
// stores the account. Only the signed-in owner may use them: the endpoint's authentication, CSRF
// check and budget of connections (src/plugin/routes/account-flows.ts) run first, and any access
// token, whatever its scopes, is refused here (403).
import express, { type Router } from "express";
import { z } from "zod";
import type { AccountInput } from "../../../contract/accounts.ts";
import type { Queryable } from "../../../contract/database.ts";
import { setFlash } from "../../../contract/flash.ts";
import { HttpError } from "../../../contract/http-error.ts";
import type { SecretSealer } from "../../../contract/secret-sealer.ts";
import {
  callbackQuery,
  onlyTheOwner,
  ownerSession,
  saidNo,
  stateRefused,
  takeCallbackState,
  translatorOf,
} from "../../shared/connect-route-state.ts";
import { THREADS_API_URL } from "../threads-options.ts";
import {
  type ThreadsConnection,
  type ThreadsEndpoints,
  ThreadsOAuthClient,
  ThreadsOAuthError,
} from "./threads-oauth-client.ts";
import { ThreadsApps, ThreadsConnectStates } from "./threads-oauth-store.ts";

export interface ThreadsConnectDeps {
  database: Queryable;
  sealer: SecretSealer;
  endpoints: ThreadsEndpoints;
  /** …/accounts/threads/callback under application.url: the redirect URI the Meta app lists. */
  redirectUri: string;
  accountsPath: string;
  saveAccount(account: AccountInput): Promise<void>;
  now: () => number;
}

/** A Threads app id is numeric (App Dashboard → App settings → Basic → Threads App ID). */
const appForm = z.object({
  appId: z
    .string()
    .trim()
    .regex(/^\d{5,32}$/),
  appSecret: z.string().trim().min(8).max(200),
});
const threadsCallbackQuery = callbackQuery.extend({
  error_reason: z.string().max(200).optional(),
  error_description: z.string().max(500).optional(),
});

export function threadsConnectRoutes(deps: ThreadsConnectDeps): Router {
  const client = new ThreadsOAuthClient(deps.endpoints);
  const apps = new ThreadsApps(deps.database, deps.sealer);
  const states = new ThreadsConnectStates(deps.database, deps.now);
  const router = express.Router();
  router.use(onlyTheOwner);

  router.post("/app", async (req, res) => {
    const parsed = appForm.safeParse(req.body ?? {});
    if (!parsed.success)
      throw new HttpError(
        400,
        "invalid_request",
        "appId must be the Threads app id (digits) and appSecret its secret",
      ).localized("accounts.types.threads.appRefused");
    await apps.keep(parsed.data);
    setFlash(res, { kind: "success", text: translatorOf(res)("accounts.types.threads.appSaved") });
    res.redirect(303, `${deps.accountsPath}#accounts-threads`);
  });

  router.post("/authorize", async (req, res) => {
    const app = await apps.find();
    if (!app)
      throw new HttpError(400, "invalid_request", "Save the Meta app's id and secret first").localized(
        "accounts.types.threads.appMissing",
      );
    const url = client.authorizeUrl(app, deps.redirectUri, await states.create(ownerSession(req)));
    res.setHeader("Cache-Control", "no-store");
    // A page that moves on by itself: the Accounts page's form may not lead to another site.
    res.render("syndicate/accounts-continue.njk", { authorizeUrl: url.href, instance: "Threads" });
  });

  router.get("/callback", async (req, res) => {
    const t = translatorOf(res);
    const { params: callback } = await takeCallbackState(
      req,
      threadsCallbackQuery,
      async (state, sessionId) => ((await states.take(state, sessionId)) ? true : undefined),
    );
    const app = await apps.find();
    if (!app) throw stateRefused();
    let connection: ThreadsConnection;
    try {
      connection = await client.connect(app, callback, deps.redirectUri);
    } catch (error) {
      if (error instanceof ThreadsOAuthError && error.kind === "denied") {
        saidNo(res, deps.accountsPath, "Threads");
        return;
      }
      if (error instanceof ThreadsOAuthError)
        throw new HttpError(502, "bad_gateway", error.message).localized("accounts.types.threads.refused", {
          error: error.message,
        });
      throw error;
    }
    const profile = `https://www.threads.com/@${connection.username}`;
    await deps.saveAccount({
      type: "threads",
      options: {
        userId: connection.userId,
        username: connection.username,
        tokenIssuedAt: new Date(deps.now()).toISOString(),
        ...(deps.endpoints.apiUrl === THREADS_API_URL ? {} : { apiUrl: deps.endpoints.apiUrl }),
      },
      display: {
        name: `@${connection.username}`,
        url: profile,
        instance: "threads.com",
        ...(connection.photo ? { photo: connection.photo } : {}),
      },
      secrets: { accessToken: connection.accessToken },
    });
    setFlash(res, {
      kind: "success",
      text: t("accounts.oauth.connected", { handle: `@${connection.username}` }),
    });
    res.redirect(303, deps.accountsPath);
  });

  return router;
}
