// Sign-in with the server's password, and sign-out.
import express, { type RequestHandler, type Router } from "express";
import { z } from "zod";
import { passesCsrf } from "../auth/authenticate.ts";
import { secretsEqual } from "../auth/constant-time.ts";
import type { SessionManager } from "../auth/session.ts";
import type { Host } from "../host.ts";
import { HttpError } from "../http-error.ts";

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
  router.post("/logout", async (req, res, next) => {
    // Another site's form must not sign the user out: a live session ends only with its CSRF token.
    const session = await sessions.read(req);
    const origin = new URL(host.hostConfig.application.url).origin;
    if (session && !passesCsrf(req, session.csrf, origin)) {
      next(
        new HttpError(
          403,
          "forbidden",
          "This form has expired or was sent from another site. Reload the page and try again.",
        ),
      );
      return;
    }
    await sessions.end(req, res);
    res.redirect(303, "/session/login");
  });
  return router;
}
