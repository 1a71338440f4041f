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

export function localeMiddleware(i18n: I18n, configured: string | undefined, timezone: string) {
  // Intl formatters are costly to build and safe to share: one per locale and style, made once.
  const dateFormats = new Map<string, Intl.DateTimeFormat>();
  const numberFormats = new Map<string, Intl.NumberFormat>();
  const dateFormat = (locale: string, style: "short" | "medium") => {
    const key = `${locale}|${style}`;
    let format = dateFormats.get(key);
    if (!format) {
      format = new Intl.DateTimeFormat(locale, { dateStyle: style, timeStyle: "short", timeZone: timezone });
      dateFormats.set(key, format);
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
    res.locals.formatDate = (
      value: Date | string | null | undefined,
      style: "short" | "medium" = "medium",
    ) => (value ? dateFormat(locale, style).format(new Date(value)) : "");
    res.locals.formatNumber = (value: number) => numberFormat(locale).format(value);
    res.setHeader("Content-Language", locale);
    next();
  };
}
