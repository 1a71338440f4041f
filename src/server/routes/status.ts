import type { RequestHandler } from "express";
import type { Host } from "../host.ts";

/** The status page (spec §5 rule 1): an access token to copy, installed plug-ins and targets. */
export function statusRoute(host: Host): RequestHandler {
  return async (_req, res) => {
    res.setHeader("Cache-Control", "no-store"); // The page shows a fresh token: never kept in a cache.
    const token = await host.tokens.issue({
      scope: ["create", "update"],
      clientId: host.hostConfig.application.url,
      lifetimeDays: host.hostConfig.application.tokenLifetimeDays,
    });
    res.render("status.njk", {
      token,
      tokenLifetimeDays: host.hostConfig.application.tokenLifetimeDays,
      plugins: host.plugins,
      endpoints: host.endpoints,
      syndicators: host.syndicators.map((s) => s.info),
      database: host.database?.engine ?? "none",
    });
  };
}
