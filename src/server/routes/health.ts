import type { RequestHandler } from "express";
import type { Host } from "../host.ts";

/** 200 with the database's state; 503 when the database does not answer. */
export function healthRoute(host: Host): RequestHandler {
  return async (_req, res) => {
    if (!host.database) {
      res.json({ status: "ok", database: "none" });
      return;
    }
    try {
      await host.database.query("SELECT 1");
      res.json({ status: "ok", database: "ok", engine: host.database.engine });
    } catch {
      res.status(503).json({ status: "unavailable", database: "unavailable", engine: host.database.engine });
    }
  };
}
