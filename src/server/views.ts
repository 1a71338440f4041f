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
  return (req: Request, res: Response, next: NextFunction) => {
    const locale = i18n.negotiate(configured, (langs) => req.acceptsLanguages(...langs));
    const dates = new Map<string, Intl.DateTimeFormat>();
    res.locals.locale = locale;
    res.locals.t = i18n.translator(locale);
    res.locals.formatDate = (
      value: Date | string | null | undefined,
      style: "short" | "medium" = "medium",
    ) => {
      if (!value) return "";
      let format = dates.get(style);
      if (!format) {
        format = new Intl.DateTimeFormat(locale, {
          dateStyle: style,
          timeStyle: "short",
          timeZone: timezone,
        });
        dates.set(style, format);
      }
      return format.format(new Date(value));
    };
    res.locals.formatNumber = (value: number) => new Intl.NumberFormat(locale).format(value);
    res.setHeader("Content-Language", locale);
    next();
  };
}
