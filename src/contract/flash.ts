// One-shot messages shown on the next page (a form without JavaScript redirects back and sees its
// outcome there). The host keeps them, signed, in a cookie; a plug-in's route hands one over here.
import type { Response } from "express";

export interface Flash {
  kind: "success" | "error" | "info" | "warning";
  text: string;
  /** A link after the text, to a page of this server (a local path). */
  link?: { href: string; text: string };
}

/** Where the host's flash middleware leaves, for every request, the function that keeps a flash. */
export const FLASH_SETTER = "setFlash";

/** Shows `flash` on the next page this browser loads. */
export function setFlash(res: Response, flash: Flash): void {
  const keep: unknown = res.locals[FLASH_SETTER];
  if (typeof keep !== "function") throw new Error("setFlash needs the host's flash middleware to have run");
  (keep as (flash: Flash) => void)(flash);
}
