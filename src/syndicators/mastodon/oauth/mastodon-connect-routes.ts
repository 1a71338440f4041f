// The routes of "Connect with your instance": POST …/authorize sends the browser to the instance's
// authorize page; GET …/callback takes the code back, stores the account and says whose it is.
// Only the signed-in owner may use them: the endpoint's authentication, CSRF check and budget of
// connections (src/plugin/routes/account-flows.ts) run first, and any token, whatever its
// scopes, is refused here (403): connecting an account is the owner's act in a browser, not an API's.
import express, { type Router } from "express";
import { z } from "zod";
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
import { type Connection, MastodonConnector } from "./mastodon-connector.ts";
import { InstanceAddressError } from "./mastodon-instance-address.ts";
import { MastodonOAuthClient, MastodonOAuthError } from "./mastodon-oauth-client.ts";
import { ScopeChoiceError } from "./mastodon-oauth-scopes.ts";
import { MastodonApps, MastodonConnectStates } from "./mastodon-oauth-store.ts";

export interface MastodonConnectDeps {
  database: Queryable;
  sealer: SecretSealer;
  policy: OutgoingFetchPolicy;
  /** …/accounts/mastodon/callback under application.url: the app's one redirect URI. */
  redirectUri: string;
  /** The Accounts page. */
  accountsPath: string;
  /** Stores the connected account (its token and app sealed) and makes it a target at once. */
  saveAccount(connection: Connection): Promise<void>;
  now: () => number;
  timeoutMs?: number;
}

const authorizeForm = z.object({ instance: z.string().max(300) });

/**
 * A failure of the connection as the owner's page says it (the JSON keeps the English); anything
 * else is not the owner's to fix and goes on as it is.
 */
function asRefusal(error: unknown, instance: string): unknown {
  if (error instanceof InstanceAddressError)
    return new HttpError(400, "invalid_request", error.message).localized(error.key, { instance });
  if (error instanceof ScopeChoiceError)
    return new HttpError(502, "bad_gateway", error.message).localized("accounts.oauth.error.scopes", {
      instance,
      missing: error.missing.join(", "),
    });
  if (error instanceof MastodonOAuthError) {
    const status = error.kind === "insecure" || error.kind === "invalid-grant" ? 400 : 502;
    return new HttpError(status, status === 400 ? "invalid_request" : "bad_gateway", error.message).localized(
      `accounts.oauth.error.${error.kind}`,
      { instance },
    );
  }
  return error;
}

export function mastodonConnectRoutes(deps: MastodonConnectDeps): Router {
  const client = new MastodonOAuthClient({
    policy: deps.policy,
    ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
  });
  const apps = new MastodonApps(deps.database, deps.sealer);
  const states = new MastodonConnectStates(deps.database, deps.sealer, deps.now);
  const connector = new MastodonConnector(client, apps);
  const router = express.Router();
  router.use(onlyTheOwner);

  router.post("/authorize", async (req, res, next) => {
    const parsed = authorizeForm.safeParse(req.body ?? {});
    const instance = parsed.success ? parsed.data.instance.trim() : "";
    try {
      const sessionId = ownerSession(req);
      if (!parsed.success)
        throw new InstanceAddressError("Type your instance", "accounts.oauth.error.instance");
      const lang = typeof res.locals.locale === "string" ? res.locals.locale : undefined;
      const url = await connector.begin(instance, {
        redirectUri: deps.redirectUri,
        sessionId,
        states,
        ...(lang ? { lang } : {}),
      });
      if (!prefersHtml(req)) {
        res.redirect(303, url.href);
        return;
      }
      // A page that moves on by itself: the Accounts page's form may not lead to another site
      // (Content-Security-Policy form-action 'self' covers the form's redirects too).
      res.setHeader("Cache-Control", "no-store");
      res.render("syndicate/accounts-continue.njk", {
        authorizeUrl: url.href,
        instance: new URL(url.origin).host,
      });
    } catch (error) {
      next(asRefusal(error, instance.slice(0, 100)));
    }
  });

  router.get("/callback", async (req, res, next) => {
    const t = translatorOf(res);
    try {
      const { kept: pending, params: callback } = await takeCallbackState(
        req,
        callbackQuery,
        async (state, sessionId) => {
          const taken = await states.take(state, sessionId);
          return taken?.ok ? taken.pending : undefined;
        },
      );
      const host = new URL(pending.instance.origin).host;
      let connection: Connection;
      try {
        connection = await connector.finish({ ...pending, callback });
      } catch (error) {
        if (error instanceof MastodonOAuthError && error.kind === "denied") {
          saidNo(res, deps.accountsPath, host);
          return;
        }
        throw asRefusal(error, host);
      }
      try {
        await deps.saveAccount(connection);
      } catch (error) {
        // A token nobody keeps is given back, so that it does not stay valid on the instance.
        await client.revoke(connection.instance, connection.app, connection.accessToken).catch(() => {});
        throw error;
      }
      setFlash(res, {
        kind: "success",
        text: t("accounts.oauth.connected", { handle: connection.account.handle }),
      });
      res.redirect(303, deps.accountsPath);
    } catch (error) {
      next(error);
    }
  });

  return router;
}
