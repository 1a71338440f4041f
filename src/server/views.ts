// Nunjucks over the host's views and those plug-ins add, plus the per-request locals every page uses.
import type { Express, NextFunction, Request, Response } from "express";
import nunjucks from "nunjucks";
import type { I18n } from "./i18n.ts";

export class Views {
  readonly searchPaths: string[];
  readonly environment: nunjucks.Environment;
  private readonly loader: nunjucks.FileSystemLoader;

  constructor(hostViews: string, production: boolean) {
    this.searchPaths = [hostViews];
    this.loader = new nunjucks.FileSystemLoader(this.searchPaths, { noCache: !production });
    this.environment = new nunjucks.Environment(this.loader, { autoescape: true, throwOnUndefined: false });
    this.environment.addFilter("json", (value: unknown) => JSON.stringify(value));
  }

  add(folder: string): void {
    if (this.searchPaths.includes(folder)) return;
    this.searchPaths.push(folder);
    // The loader keeps its own copy of the paths.
    (this.loader as unknown as { searchPaths: string[] }).searchPaths.push(folder);
  }

  install(app: Express): void {
    app.engine("njk", (path, options, callback) => {
      this.environment.render(path, options as object, callback as nunjucks.TemplateCallback<string>);
    });
    app.set("view engine", "njk");
    app.set("views", this.searchPaths);
  }
}

/**
 * One date format for every page: the date, the time and the time zone (the publication's), so that
 * a reader never wonders which zone a time is in. `precise` adds the seconds (attempts of one post
 * often fall within a minute: the results page uses it throughout).
 */
const DATE_PARTS: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZoneName: "short",
};

/** The largest unit that still says how far away a moment is ("in 2 min", "in 3 hr", "tomorrow"). */
export function relativeParts(from: Date, to: Date): { value: number; unit: Intl.RelativeTimeFormatUnit } {
  const seconds = Math.round((to.getTime() - from.getTime()) / 1000);
  const size = Math.abs(seconds);
  if (size < 60) return { value: seconds, unit: "second" };
  if (size < 3600) return { value: Math.round(seconds / 60), unit: "minute" };
  if (size < 86_400) return { value: Math.round(seconds / 3600), unit: "hour" };
  return { value: Math.round(seconds / 86_400), unit: "day" };
}

export function localeMiddleware(i18n: I18n, configured: string | undefined, timezone: string) {
  // Intl formatters are costly to build and safe to share: one per locale and kind, made once.
  const dateFormats = new Map<string, Intl.DateTimeFormat>();
  const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();
  const numberFormats = new Map<string, Intl.NumberFormat>();
  const dateFormat = (locale: string, precise: boolean) => {
    const key = `${locale}|${precise}`;
    let format = dateFormats.get(key);
    if (!format) {
      format = new Intl.DateTimeFormat(locale, {
        ...DATE_PARTS,
        ...(precise ? { second: "2-digit" } : {}),
        timeZone: timezone,
      });
      dateFormats.set(key, format);
    }
    return format;
  };
  const relativeFormat = (locale: string) => {
    let format = relativeFormats.get(locale);
    if (!format) {
      format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
      relativeFormats.set(locale, format);
    }
    return format;
  };
  const numberFormat = (locale: string) => {
    let format = numberFormats.get(locale);
    if (!format) {
      format = new Intl.NumberFormat(locale);
      numberFormats.set(locale, format);
    }
    return format;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const locale = i18n.negotiate(configured, (langs) => req.acceptsLanguages(...langs));
    res.locals.locale = locale;
    res.locals.t = i18n.translator(locale);
    res.locals.formatDate = (value: Date | string | null | undefined) =>
      value ? dateFormat(locale, false).format(new Date(value)) : "";
    res.locals.formatPreciseDate = (value: Date | string | null | undefined) =>
      value ? dateFormat(locale, true).format(new Date(value)) : "";
    // What is coming, from now: "in 2 minutes" (the exact time beside it, in the page's one format).
    res.locals.formatRelative = (value: Date | string | null | undefined) => {
      if (!value) return "";
      const { value: amount, unit } = relativeParts(new Date(), new Date(value));
      return relativeFormat(locale).format(amount, unit);
    };
    res.locals.formatNumber = (value: number) => numberFormat(locale).format(value);
    res.setHeader("Content-Language", locale);
    next();
  };
}
