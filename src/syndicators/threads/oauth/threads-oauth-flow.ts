// "Connect with Threads" as an account flow of the syndication endpoint: its tables (the Meta app,
// the pending states, the refreshed tokens) and its routes on the running server. The Graph API's
// and the Authorization Window's addresses are Meta's; threadsOAuthFlowFor names others (a
// stand-in such as dev/sandbox/threads-server.ts).
import type { AccountFlow } from "../../../contract/account-flow.ts";
import { flowRedirectUri, routesWithDatabase } from "../../shared/oauth-flow-routes.ts";
import { THREADS_API_URL } from "../threads-options.ts";
import { DatabaseTokenStore } from "../threads-tokens.ts";
import { threadsConnectRoutes } from "./threads-connect-routes.ts";
import { THREADS_AUTHORIZE_URL, type ThreadsEndpoints } from "./threads-oauth-client.ts";
import { ThreadsApps, threadsOAuthMigrations } from "./threads-oauth-store.ts";

export const threadsOAuthFlowFor = (endpoints: ThreadsEndpoints): AccountFlow => ({
  type: "threads",
  migrations: threadsOAuthMigrations,
  async rekey({ database, secretSealer }) {
    if (!database || !secretSealer) return 0;
    return (
      (await new ThreadsApps(database, secretSealer).rekey()) +
      (await new DatabaseTokenStore(database, secretSealer).rekey())
    );
  },
  /** Whether the Meta app is set (never its id or secret) and the redirect URI it must list. */
  async page({ server, basePath }) {
    const { database, secretSealer } = server;
    const app = database && secretSealer ? await new ThreadsApps(database, secretSealer).find() : undefined;
    return {
      appSetAt: app?.setAt ?? null,
      redirectUri: flowRedirectUri(server, basePath),
    };
  },
  routes({ server, basePath, accountsPath, now }) {
    return routesWithDatabase(server, ({ database, accounts, sealer }) =>
      threadsConnectRoutes({
        database,
        sealer,
        endpoints,
        redirectUri: flowRedirectUri(server, basePath),
        accountsPath,
        now,
        async saveAccount(account) {
          await accounts.save(account);
        },
      }),
    );
  },
});

export const threadsOAuthFlow = threadsOAuthFlowFor({
  apiUrl: THREADS_API_URL,
  authorizeUrl: THREADS_AUTHORIZE_URL,
});
