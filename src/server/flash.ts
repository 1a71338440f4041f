// One-shot messages shown on the next page, kept in a short-lived cookie (forms without JavaScript
// redirect back to the page they came from and see the outcome there).
import type { Request, Response } from "express";
import { parseCookies } from "./auth/session.ts";

const FLASH_COOKIE = "possekit_flash";

export interface Flash {
  kind: "success" | "error" | "info";
  text: string;
}

export function setFlash(res: Response, flash: Flash): void {
  const value = Buffer.from(JSON.stringify(flash)).toString("base64url");
  res.cookie(FLASH_COOKIE, value, { httpOnly: true, sameSite: "lax", path: "/", maxAge: 60_000 });
}

export function takeFlash(req: Request, res: Response): Flash | null {
  const value = parseCookies(req.headers.cookie).get(FLASH_COOKIE);
  if (!value) return null;
  res.clearCookie(FLASH_COOKIE, { path: "/" });
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<Flash>;
    if (typeof parsed.text !== "string" || !["success", "error", "info"].includes(String(parsed.kind)))
      return null;
    return { kind: parsed.kind as Flash["kind"], text: parsed.text.slice(0, 500) };
  } catch {
    return null;
  }
}
