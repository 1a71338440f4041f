// "Connect with your instance" as an account flow of the syndication endpoint: its tables, and
// its routes built on the running server's database, secret box, accounts and fetch rules. The
// connected account is a Mastodon syndicator at once (server.accounts registers it); its token and
// the app's client id and secret are kept sealed with it, so that Disconnect (mastodon-account.ts)
// can revoke the token with POST /oauth/revoke.
import type { AccountFlow } from "../../../contract/account-flow.ts";
import { flowRedirectUri, routesWithDatabase } from "../../shared/oauth-flow-routes.ts";
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
    return routesWithDatabase(server, ({ database, accounts, sealer }) =>
      mastodonConnectRoutes({
        database,
        sealer,
        policy: { allowPrivate: server.config.fetch.allowPrivate, ownSite: server.publication.me },
        redirectUri: flowRedirectUri(server, basePath),
        accountsPath,
        now,
        async saveAccount(connection) {
          await accounts.save(accountToStore(connection));
          // A post already waiting for this account goes out now, by itself: the endpoint wakes the
          // scheduler for every account saved (accounts.onChange).
        },
      }),
    );
  },
};
