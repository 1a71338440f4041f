import type { RequestHandler } from "express";
import type { Host } from "../host.ts";

/** Each plug-in's report under its id; one that fails says so rather than failing /health. */
async function pluginHealth(host: Host): Promise<Record<string, unknown>> {
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

/** 200 with the database's state and the plug-ins' reports; 503 when the database does not answer. */
export function healthRoute(host: Host): RequestHandler {
  return async (_req, res) => {
    if (!host.database) {
      res.json({ status: "ok", database: "none" });
      return;
    }
    try {
      await host.database.query("SELECT 1");
      res.json({ status: "ok", database: "ok", engine: host.database.engine, ...(await pluginHealth(host)) });
    } catch {
      res.status(503).json({ status: "unavailable", database: "unavailable", engine: host.database.engine });
    }
  };
}
