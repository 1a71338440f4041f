// The IndieAuth server (W3C IndieAuth, 2022 edition and later), one file per endpoint: the
// authorization endpoint with its consent page (authorization.ts), the token endpoint with
// verification and introspection (token.ts), revocation (revocation.ts). Access tokens are the
// server's own JWTs, recorded in the token registry, so they are listed and revoked on the status
// page with every other token.
import express, { type Request, type Response, type Router } from "express";
import type { SessionManager } from "../auth/session.ts";
import type { TokenRegistry } from "../auth/token-registry.ts";
import type { RunningHost } from "../running-host.ts";
import { authorizationRoutes } from "./authorization.ts";
import { indieauthUrls, metadataDocument } from "./endpoints.ts";
import { type GrantStore, grantStore } from "./grant-store.ts";
import { apiResponse } from "./oauth-http.ts";
import { revocationRoutes } from "./revocation.ts";
import { tokenRoutes } from "./token.ts";

export function metadataRoute(baseUrl: string) {
  return [
    apiResponse,
    (_req: Request, res: Response) => {
      res.setHeader("Cache-Control", "max-age=3600");
      res.json(metadataDocument(indieauthUrls(baseUrl)));
    },
  ];
}

export function indieauthRoutes(
  host: RunningHost,
  sessions: SessionManager,
  registry: TokenRegistry,
  store: GrantStore = grantStore(host.database),
): Router {
  const router = express.Router();
  const server = {
    host,
    sessions,
    registry,
    store,
    urls: indieauthUrls(host.hostConfig.application.url),
    me: host.publication.me,
  };
  authorizationRoutes(router, server);
  router.options(["/token", "/revoke", "/introspect"], apiResponse);
  tokenRoutes(router, server);
  revocationRoutes(router, server);
  return router;
}
