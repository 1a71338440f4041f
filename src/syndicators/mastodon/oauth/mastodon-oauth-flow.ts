// "Connect with your instance" as an account flow of the syndication endpoint: its tables, and
// its routes built on the running server's database, secret box, accounts and fetch rules. The
// connected account is a Mastodon syndicator at once (server.accounts registers it); its token and
// the app's client id and secret are kept sealed with it, so that Disconnect (mastodon-account.ts)
// can revoke the token with POST /oauth/revoke.
import express from "express";
import type { AccountFlow } from "../../../contract/account-flow.ts";
import { HttpError } from "../../../contract/http-error.ts";
import { mastodonConnectRoutes } from "./mastodon-connect-routes.ts";
import { accountToStore } from "./mastodon-connector.ts";
import { MastodonApps, mastodonOAuthMigrations } from "./mastodon-oauth-store.ts";

export const mastodonOAuthFlow: AccountFlow = {
  type: "mastodon",
  migrations: mastodonOAuthMigrations,
  async rekey({ database, secretSealer }) {
    if (!database || !secretSealer) return 0;
    return new MastodonApps(database, secretSealer).rekey();
  },
  routes({ server, basePath, accountsPath, now }) {
    const { database, accounts, secretSealer } = server;
    if (!database || !accounts || !secretSealer) {
      const router = express.Router();
      router.use((_req, _res, next) =>
        next(
          new HttpError(
            501,
            "not_implemented",
            "Connecting an account needs the server's database",
          ).localized("accounts.oauth.noDatabase"),
        ),
      );
      return router;
    }
    const applicationUrl = server.config.application.url.replace(/\/+$/, "");
    return mastodonConnectRoutes({
      database,
      sealer: secretSealer,
      policy: { allowPrivate: server.config.fetch.allowPrivate, ownSite: server.publication.me },
      redirectUri: `${applicationUrl}${basePath}/callback`,
      accountsPath,
      now,
      async saveAccount(connection) {
        await accounts.save(accountToStore(connection));
        // A post already waiting for this account goes out now, by itself: the endpoint wakes the
        // scheduler for every account saved (accounts.onChange).
      },
    });
  },
};
