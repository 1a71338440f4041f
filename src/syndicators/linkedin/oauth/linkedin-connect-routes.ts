// The routes of "Connect with LinkedIn", under {mountPath}/accounts/linkedin/: POST …/app keeps the
// owner's developer app (client id and secret, sealed; never shown again), POST …/authorize sends
// the browser to LinkedIn's authorize page, GET …/callback takes the code back, stores the member's
// account (token and app sealed, the token's end among its options) and says whose it is. Only the
// signed-in owner may use them: the endpoint's authentication, CSRF check and budget of connections
// (src/plugin/routes/account-flows.ts) run first, and any access token is refused here (403).
import express, { type Router } from "express";
import { z } from "zod";
import { AccountError } from "../../../contract/accounts.ts";
import type { Queryable } from "../../../contract/database.ts";
import { setFlash } from "../../../contract/flash.ts";
import { HttpError } from "../../../contract/http-error.ts";
import { prefersHtml } from "../../../contract/negotiate.ts";
import type { SecretSealer } from "../../../contract/secret-sealer.ts";
import type { OutgoingFetchPolicy } from "../../../net/safe-fetch.ts";
import {
  callbackQuery,
  onlyTheOwner,
  ownerSession,
  saidNo,
  takeCallbackState,
  translatorOf,
} from "../../shared/connect-route-state.ts";
import { LinkedinOAuthClient, LinkedinOAuthError, type LinkedinToken } from "./linkedin-oauth-client.ts";
import { type LinkedinApp, LinkedinApps, LinkedinConnectStates } from "./linkedin-oauth-store.ts";

export interface LinkedinConnectDeps {
  database: Queryable;
  sealer: SecretSealer;
  policy: OutgoingFetchPolicy;
  apiUrl: string;
  /** …/accounts/linkedin/callback under application.url: the redirect URL the owner's app lists. */
  redirectUri: string;
  accountsPath: string;
  saveAccount(token: LinkedinToken, app: LinkedinApp): Promise<void>;
  now: () => number;
}

// LinkedIn's client ids are short; secrets are 16 characters or so. Generous bounds, no more.
const appForm = z.object({
  clientId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[\w.-]+$/),
  clientSecret: z.string().min(1).max(500),
});
const linkedinCallbackQuery = callbackQuery.extend({
  error_description: z.string().max(2000).optional(),
});

/** Connecting needs the owner's developer app, saved on the Accounts page first. */
const appFirst = () =>
  new HttpError(400, "invalid_request", "Enter your LinkedIn app's client id and secret first").localized(
    "accounts.linkedin.appFirst",
  );

function asRefusal(error: unknown): unknown {
  if (error instanceof LinkedinOAuthError) {
    const status = error.kind === "invalid-grant" || error.kind === "invalid-client" ? 400 : 502;
    return new HttpError(status, status === 400 ? "invalid_request" : "bad_gateway", error.message).localized(
      `accounts.linkedin.error.${error.kind}`,
    );
  }
  if (error instanceof AccountError)
    return new HttpError(502, "bad_gateway", error.message).localized(
      `accounts.errors.${error.key ?? "refused"}`,
      {
        service: "LinkedIn",
        ...error.params,
      },
    );
  return error;
}

export function linkedinConnectRoutes(deps: LinkedinConnectDeps): Router {
  const apps = new LinkedinApps(deps.database, deps.sealer);
  const states = new LinkedinConnectStates(deps.database, deps.now);
  const client = new LinkedinOAuthClient(deps.apiUrl, deps.policy, deps.now);
  const router = express.Router();
  router.use(onlyTheOwner);

  router.post("/app", async (req, res, next) => {
    try {
      const parsed = appForm.safeParse(req.body ?? {});
      if (!parsed.success)
        throw new HttpError(400, "invalid_request", "Give the app's client id and client secret").localized(
          "accounts.linkedin.appMissing",
        );
      await apps.keep(parsed.data, new Date(deps.now()));
      setFlash(res, { kind: "success", text: translatorOf(res)("accounts.linkedin.appSaved") });
      res.redirect(303, `${deps.accountsPath}#accounts-linkedin`);
    } catch (error) {
      next(error);
    }
  });

  router.post("/authorize", async (req, res, next) => {
    try {
      const sessionId = ownerSession(req);
      const app = await apps.find();
      if (!app) throw appFirst();
      const state = await states.create(sessionId, deps.redirectUri);
      const url = client.authorizeUrl(app, deps.redirectUri, state);
      if (!prefersHtml(req)) {
        res.redirect(303, url.href);
        return;
      }
      // A page that moves on by itself: the page's CSP (form-action 'self') keeps a form from
      // redirecting to another site.
      res.setHeader("Cache-Control", "no-store");
      res.render("syndicate/accounts-continue.njk", { authorizeUrl: url.href, instance: url.host });
    } catch (error) {
      next(error);
    }
  });

  router.get("/callback", async (req, res, next) => {
    const t = translatorOf(res);
    try {
      const {
        kept: redirectUri,
        state,
        params: callback,
      } = await takeCallbackState(req, linkedinCallbackQuery, (state, sessionId) =>
        states.take(state, sessionId),
      );
      const app = await apps.find();
      if (!app) throw appFirst();
      let token: LinkedinToken;
      try {
        token = await client.finish(app, redirectUri, callback, state, {
          allowPrivate: deps.policy.allowPrivate === true,
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        if (error instanceof LinkedinOAuthError && error.kind === "denied") {
          saidNo(res, deps.accountsPath, "LinkedIn");
          return;
        }
        throw asRefusal(error);
      }
      await deps.saveAccount(token, app);
      setFlash(res, { kind: "success", text: t("accounts.oauth.connected", { handle: token.member.name }) });
      res.redirect(303, deps.accountsPath);
    } catch (error) {
      next(error);
    }
  });

  return router;
}
