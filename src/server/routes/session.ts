// Sign-in with the server's password, and sign-out.
import { isAbsolute, relative } from "node:path";
import express, { type Request, type RequestHandler, type Router } from "express";
import { z } from "zod";
import { HttpError } from "../../contract/http-error.ts";
import { passesCsrf } from "../auth/authenticate.ts";
import { secretsEqual } from "../auth/constant-time.ts";
import type { SessionManager } from "../auth/session.ts";
import type { RunningHost } from "../running-host.ts";

const loginSchema = z.object({ password: z.string().max(1000), redirect: z.string().max(2048).optional() });

/**
 * Only a local path, never another site: no "//host" or "/\\host", and no whitespace or control
 * character anywhere (browsers drop a tab or a newline from a URL, so "/\t/evil.example" would
 * become "//evil.example"), and never the sign-in page itself.
 */
export function safeRedirect(value: unknown, fallback = "/"): string {
  if (typeof value !== "string" || !/^\/(?![/\\])/.test(value) || hasControlOrSpace(value)) return fallback;
  return value.startsWith("/session/") ? fallback : value;
}

function hasControlOrSpace(value: string): boolean {
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    if (code <= 0x20 || code === 0x7f || character === "\\" || /\s/.test(character)) return true;
  }
  return false;
}

/** The page the user came from, when it is one of ours: where signing in brings them back. */
function cameFrom(req: Request, origin: string): string | undefined {
  const referrer = req.get("referer");
  if (!referrer || !URL.canParse(referrer)) return undefined;
  const url = new URL(referrer);
  return url.origin === origin ? `${url.pathname}${url.search}` : undefined;
}

/** Where the generated password is kept, as the person who started the server would write it. */
function passwordFileShown(file: string | undefined): string | null {
  if (!file) return null;
  const shown = relative(process.cwd(), file);
  return shown && !shown.startsWith("..") && !isAbsolute(shown) ? shown : file;
}

export function sessionRoutes(
  host: RunningHost,
  sessions: SessionManager,
  signInLimiter: RequestHandler,
): Router {
  const router = express.Router();
  const origin = () => new URL(host.hostConfig.application.url).origin;
  const passwordFile = () => passwordFileShown(host.hostConfig.passwordFile);
  router.get("/login", async (req, res) => {
    const redirect = safeRedirect(req.query.redirect ?? cameFrom(req, origin()));
    if (await sessions.read(req)) return res.redirect(303, redirect);
    res.render("login.njk", { redirect, passwordFile: passwordFile() });
  });
  router.post("/login", signInLimiter, async (req, res) => {
    const form = loginSchema.safeParse(req.body ?? {});
    const redirect = safeRedirect(form.success ? form.data.redirect : undefined);
    if (!form.success || !secretsEqual(form.data.password, host.hostConfig.secrets.password)) {
      res.status(401).render("login.njk", { redirect, error: true, passwordFile: passwordFile() });
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
