// The plug-in's words under Indiekit. Indiekit's i18n (res.locals.__) knows neither our {name}
// placeholders nor our plural forms, so the routes get `res.locals.t` from our own catalogue, in the
// language Indiekit chose for the request (its configured locale, ?lang, the cookie or
// Accept-Language). Navigation items are the exception: Indiekit translates them itself, from the
// catalogue it loads beside our module (dist/locales, written by scripts/build.mjs).
import { join } from "node:path";
import type { NextFunction, Request, Response } from "express";
import { DEFAULT_LOCALE, I18n } from "../../contract/locale-catalog.ts";
import { PACKAGE_ROOT } from "../package-root.ts";

let catalog: I18n | undefined;

function ourCatalog(): I18n {
  if (!catalog) {
    catalog = new I18n();
    catalog.addFolder(join(PACKAGE_ROOT, "locales"));
  }
  return catalog;
}

/** "de-AT" finds "de"; a language we have no words in gets English. */
export function catalogLocale(available: readonly string[], wanted: string | undefined): string {
  if (!wanted) return DEFAULT_LOCALE;
  if (available.includes(wanted)) return wanted;
  const base = wanted.split("-")[0] ?? wanted;
  return available.includes(base) ? base : DEFAULT_LOCALE;
}

/** Sets res.locals.t when the host has not (Indiekit), from the locale Indiekit chose. */
export function translateUnderIndiekit(req: Request, res: Response, next: NextFunction): void {
  if (typeof res.locals.t !== "function") {
    const i18n = ourCatalog();
    const chosen = (req as Request & { getLocale?: () => string }).getLocale?.();
    res.locals.t = i18n.translator(catalogLocale(i18n.locales, chosen));
  }
  next();
}
