// What every "Connect with …" account flow builds its routes on: the running server's database,
// connected accounts and secret box, and the redirect URI the owner lists in the service's app.
import express, { type Router } from "express";
import type { AccountFlowContext } from "../../contract/account-flow.ts";
import { noDatabase } from "../../contract/http-error.ts";

type Server = AccountFlowContext["server"];

/** The parts a flow's routes need, present. */
export interface FlowParts {
  database: NonNullable<Server["database"]>;
  accounts: NonNullable<Server["accounts"]>;
  sealer: NonNullable<Server["secretSealer"]>;
}

/**
 * Where the service sends the owner back: the flow's `callback` under the server's own URL.
 *
 * @example flowRedirectUri(server, "/syndicate/accounts/mastodon") // "https://me.example/syndicate/accounts/mastodon/callback"
 */
export function flowRedirectUri(server: Server, basePath: string): string {
  return `${server.config.application.url.replace(/\/+$/, "")}${basePath}/callback`;
}

/** The flow's routes built on `parts`; without a database every one answers 501, saying why. */
export function routesWithDatabase(server: Server, build: (parts: FlowParts) => Router): Router {
  const { database, accounts, secretSealer } = server;
  if (database && accounts && secretSealer) return build({ database, accounts, sealer: secretSealer });
  const router = express.Router();
  router.use((_req, _res, next) =>
    next(
      noDatabase("Connecting an account needs the server's database").localized("accounts.oauth.noDatabase"),
    ),
  );
  return router;
}
