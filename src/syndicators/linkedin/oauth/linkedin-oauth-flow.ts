// "Connect with LinkedIn" as an account flow of the syndication endpoint: its tables, its routes on
// the running server, and what the Accounts page shows of it (whether the owner's app is entered,
// and the redirect URL to list in it). The connected member is a LinkedIn syndicator at once; its
// token and the app are kept sealed with it, so that Disconnect can revoke the token, and the
// token's end is among its options, for the warnings before it (linkedin-token-expiry.ts), which
// its watch sends by itself.
import type { AccountFlow } from "../../../contract/account-flow.ts";
import { flowRedirectUri, routesWithDatabase } from "../../shared/oauth-flow-routes.ts";
import { LINKEDIN_API_URL, linkedinAccountFields } from "../linkedin-account.ts";
import { linkedinConnectRoutes } from "./linkedin-connect-routes.ts";
import { LinkedinApps, linkedinOAuthMigrations } from "./linkedin-oauth-store.ts";
import { linkedinWarningMigrations, watchLinkedinTokens } from "./linkedin-token-expiry.ts";

/** The flow for LinkedIn's API at `apiUrl` (a sandbox in tests). */
export function linkedinOAuthFlowFor(apiUrl = LINKEDIN_API_URL): AccountFlow {
  return {
    type: "linkedin",
    migrations: [...linkedinOAuthMigrations, ...linkedinWarningMigrations],
    watch({ server, now, every, accountsUrl, notify }) {
      const { database, accounts } = server;
      if (!database || !accounts) return () => {};
      return watchLinkedinTokens({
        database,
        accounts,
        now,
        every,
        accountsUrl,
        notify,
        onError: (error) =>
          server.logger.warn("Could not look at the LinkedIn tokens' ends", {
            error: error instanceof Error ? error.message : String(error),
          }),
      });
    },
    async rekey({ database, secretSealer }) {
      if (!database || !secretSealer) return 0;
      return new LinkedinApps(database, secretSealer).rekey();
    },
    async page({ server, basePath }) {
      const { database, secretSealer } = server;
      if (!database || !secretSealer) return {};
      const setAt = await new LinkedinApps(database, secretSealer).setAt();
      return { appSetAt: setAt ?? null, redirectUri: flowRedirectUri(server, basePath) };
    },
    routes({ server, basePath, accountsPath, now }) {
      return routesWithDatabase(server, ({ database, accounts, sealer }) =>
        linkedinConnectRoutes({
          database,
          sealer,
          policy: { allowPrivate: server.config.fetch.allowPrivate, ownSite: server.publication.me },
          apiUrl,
          redirectUri: flowRedirectUri(server, basePath),
          accountsPath,
          now,
          async saveAccount(token, app) {
            const fields = linkedinAccountFields(token.member, apiUrl);
            await accounts.save({
              type: "linkedin",
              options: { ...fields.options, tokenExpiresAt: token.expiresAt.toISOString() },
              display: fields.display,
              secrets: {
                accessToken: token.accessToken,
                clientId: app.clientId,
                clientSecret: app.clientSecret,
              },
            });
          },
        }),
      );
    },
  };
}

export const linkedinOAuthFlow = linkedinOAuthFlowFor();
