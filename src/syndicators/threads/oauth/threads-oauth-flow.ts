// "Connect with Threads" as an account flow of the syndication endpoint: its tables (the Meta app,
// the pending states, the refreshed tokens) and its routes on the running server. The Graph API's
// and the Authorization Window's addresses are Meta's unless the config file names others under
// the package (apiUrl, authorizeUrl: a stand-in such as dev/sandbox/threads-server.ts).
import express from "express";
import type { AccountFlow } from "../../../contract/account-flow.ts";
import { HttpError } from "../../../contract/http-error.ts";
import { DatabaseTokenStore } from "../threads-tokens.ts";
import { THREADS_API_URL } from "../threads-options.ts";
import { threadsConnectRoutes } from "./threads-connect-routes.ts";
import { THREADS_AUTHORIZE_URL } from "./threads-oauth-client.ts";
import { ThreadsApps, threadsOAuthMigrations } from "./threads-oauth-store.ts";

export const THREADS_PACKAGE = "@possekit/syndicator-threads";

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value.replace(/\/+$/, "") : undefined);

export const threadsOAuthFlow: AccountFlow = {
  type: "threads",
  migrations: threadsOAuthMigrations,
  async rekey({ database, secretSealer }) {
    if (!database || !secretSealer) return 0;
    return (
      (await new ThreadsApps(database, secretSealer).rekey()) +
      (await new DatabaseTokenStore(database, secretSealer).rekey())
    );
  },
  routes({ server, basePath, accountsPath, now }) {
    const { database, accounts, secretSealer } = server;
    if (!database || !accounts || !secretSealer) {
      const router = express.Router();
      router.use((_req, _res, next) =>
        next(
          new HttpError(501, "not_implemented", "Connecting an account needs the server's database").localized(
            "accounts.oauth.noDatabase",
          ),
        ),
      );
      return router;
    }
    const configured = server.pluginOptions(THREADS_PACKAGE);
    const applicationUrl = server.config.application.url.replace(/\/+$/, "");
    return threadsConnectRoutes({
      database,
      sealer: secretSealer,
      endpoints: {
        apiUrl: text(configured.apiUrl) ?? THREADS_API_URL,
        authorizeUrl: text(configured.authorizeUrl) ?? THREADS_AUTHORIZE_URL,
      },
      redirectUri: `${applicationUrl}${basePath}/callback`,
      accountsPath,
      now,
      async saveAccount(account) {
        await accounts.save(account);
      },
    });
  },
};
