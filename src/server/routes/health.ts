import type { RequestHandler } from "express";
import type { InsiderCheck } from "../auth/insider.ts";
import type { RunningHost } from "../running-host.ts";

/** Each plug-in's report under its id; one that fails says so rather than failing /health. */
async function pluginHealth(host: RunningHost): Promise<Record<string, unknown>> {
  const reports: Record<string, unknown> = {};
  for (const plugin of host.plugins) {
    if (!plugin.health) continue;
    try {
      reports[plugin.id] = await plugin.health();
    } catch (error) {
      reports[plugin.id] = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  return reports;
}

/**
 * 200 with the database's state; 503 when the database does not answer. A stranger learns only
 * that (what a load balancer or an uptime check needs). The signed-in owner and a token's holder
 * also get the engine and the plug-ins' reports: feed and endpoint URLs, the names of the token
 * variables, the errors remote servers answered, which are nobody else's business.
 */
export function healthRoute(host: RunningHost, isInsider: InsiderCheck): RequestHandler {
  return async (req, res) => {
    // The answer depends on who asks: a shared cache must not hand the owner's to a stranger.
    res.setHeader("Cache-Control", "no-store");
    res.vary("Authorization");
    res.vary("Cookie");
    if (!host.database) {
      res.json({ status: "ok", database: "none" });
      return;
    }
    try {
      await host.database.query("SELECT 1");
    } catch {
      res.status(503).json({ status: "unavailable", database: "unavailable" });
      return;
    }
    if (!(await isInsider(req))) {
      res.json({ status: "ok", database: "ok" });
      return;
    }
    res.json({ status: "ok", database: "ok", engine: host.database.engine, ...(await pluginHealth(host)) });
  };
}
