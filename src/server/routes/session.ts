// Sign-in with the server's password, and sign-out.
import express, { type RequestHandler, type Router } from "express";
import { z } from "zod";
import { secretsEqual } from "../auth/constant-time.ts";
import type { SessionManager } from "../auth/session.ts";
import type { Host } from "../host.ts";

const loginSchema = z.object({ password: z.string().max(1000), redirect: z.string().max(2048).optional() });

/** Only a local path, never another site (no "//host" or "/\\host"). */
export function safeRedirect(value: unknown, fallback = "/"): string {
  return typeof value === "string" && /^\/(?![/\\])/.test(value) ? value : fallback;
}

export function sessionRoutes(host: Host, sessions: SessionManager, signInLimiter: RequestHandler): Router {
  const router = express.Router();
  router.get("/login", async (req, res) => {
    if (await sessions.read(req)) return res.redirect(303, safeRedirect(req.query.redirect));
    res.render("login.njk", { redirect: safeRedirect(req.query.redirect) });
  });
  router.post("/login", signInLimiter, async (req, res) => {
    const form = loginSchema.safeParse(req.body ?? {});
    const redirect = safeRedirect(form.success ? form.data.redirect : undefined);
    if (!form.success || !secretsEqual(form.data.password, host.hostConfig.secrets.password)) {
      res.status(401).render("login.njk", { redirect, error: true });
      return;
    }
    await sessions.start(req, res);
    res.redirect(303, redirect);
  });
  router.post("/logout", async (req, res) => {
    await sessions.end(req, res);
    res.redirect(303, "/session/login");
  });
  return router;
}
