// One-shot messages shown on the next page, kept in a short-lived cookie (forms without JavaScript
// redirect back to the page they came from and see the outcome there). The cookie is signed with a
// key derived from the server's SECRET: a page must never show a message the server did not write
// (a forged "Syndicated" or a phishing link planted by another site that can set cookies for us).
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import { FLASH_SETTER, type Flash } from "../contract/flash.ts";
import { prefersHtml } from "../contract/negotiate.ts";
import { parseCookies } from "./auth/session.ts";

const FLASH_COOKIE = "possekit_flash";
/** Where the request's signing key waits for setFlash (res.locals, set by startFlash for every request). */
const KEY_LOCAL = "flashKey";

export type { Flash };

const KINDS = ["success", "error", "info", "warning"];

/** A path on this server: never another site's address, not even a scheme-relative one. */
function localPath(href: unknown): href is string {
  return typeof href === "string" && href.startsWith("/") && !href.startsWith("//") && !href.includes("\\");
}

/** The flash key for a server secret: its own, so that a flash signature is good for nothing else. */
export function flashKey(secret: string): Buffer {
  return createHash("sha256").update(`flash:${secret}`).digest();
}

const signature = (key: Buffer, value: string) => createHmac("sha256", key).update(value).digest();

/** For every request, before the routes: keeps the key for setFlash, and takes a page's flash. */
export function startFlash(req: Request, res: Response, key: Buffer): void {
  res.locals[KEY_LOCAL] = key;
  // How a plug-in's route keeps one (src/contract/flash.ts), without reaching into the host.
  res.locals[FLASH_SETTER] = (flash: Flash) => setFlash(res, flash);
  if (req.method === "GET" && prefersHtml(req)) res.locals.flash = takeFlash(req, res);
}

export function setFlash(res: Response, flash: Flash): void {
  const key = res.locals[KEY_LOCAL];
  if (!Buffer.isBuffer(key)) throw new Error("setFlash needs startFlash to have run for this request");
  const value = Buffer.from(JSON.stringify(flash)).toString("base64url");
  const signed = `${value}.${signature(key, value).toString("base64url")}`;
  res.cookie(FLASH_COOKIE, signed, { httpOnly: true, sameSite: "lax", path: "/", maxAge: 60_000 });
}

export function takeFlash(req: Request, res: Response): Flash | null {
  const cookie = parseCookies(req.headers.cookie).get(FLASH_COOKIE);
  const key = res.locals[KEY_LOCAL];
  if (!cookie || !Buffer.isBuffer(key)) return null;
  res.clearCookie(FLASH_COOKIE, { path: "/" });
  const [value, mac, ...rest] = cookie.split(".");
  if (!value || !mac || rest.length > 0) return null;
  const given = Buffer.from(mac, "base64url");
  const expected = signature(key, value);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<Flash>;
    if (typeof parsed.text !== "string" || !KINDS.includes(String(parsed.kind))) return null;
    const flash: Flash = { kind: parsed.kind as Flash["kind"], text: parsed.text.slice(0, 500) };
    const link = parsed.link;
    if (link && localPath(link.href) && typeof link.text === "string")
      flash.link = { href: link.href, text: link.text.slice(0, 200) };
    return flash;
  } catch {
    return null;
  }
}
