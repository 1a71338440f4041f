// The Syndicate page inside Indiekit, as a page of its own: our templates extend possekit's
// layout.njk, which Indiekit's views do not have, and use filters and locals Indiekit's nunjucks
// does not set. So the plug-in's routes render with possekit's own views and date formats (the
// same code as under possekit's host), in the language Indiekit chose for the request, and our
// stylesheets and scripts are served beneath the mountPath (Indiekit's /assets is its own).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { OwnPage } from "../../plugin/indiekit/own-host.ts";
import { I18n } from "../../server/i18n.ts";
import { PACKAGE_ROOT } from "../../server/package-root.ts";
import { localeMiddleware, Views } from "../../server/views.ts";

const htmxFolder = dirname(createRequire(import.meta.url).resolve("htmx.org/dist/htmx.min.js"));

/**
 * @example const page = ownPage({ mountPath: "/posse", name: "Indiekit", publication, timezone: "UTC" });
 */
export function ownPage(site: {
  mountPath: string;
  name: string;
  publication: { me: string; name: string };
  timezone: string;
  production: boolean;
}): OwnPage {
  const views = new Views(join(PACKAGE_ROOT, "views"), site.production);
  const i18n = new I18n();
  i18n.addFolder(join(PACKAGE_ROOT, "locales"));
  const assetsPath = `${site.mountPath}/assets`;
  // One middleware per language (its formatters are built once): the language is Indiekit's choice.
  const byLocale = new Map<string, RequestHandler>();
  const formattersFor = (locale: string | undefined) => {
    const key = locale ?? "";
    let middleware = byLocale.get(key);
    if (!middleware) {
      middleware = localeMiddleware(i18n, locale, site.timezone);
      byLocale.set(key, middleware);
    }
    return middleware;
  };

  const assets = express.Router();
  assets.use("/assets/vendor", express.static(htmxFolder, { maxAge: "1d", index: false }));
  assets.use("/assets", express.static(join(PACKAGE_ROOT, "public"), { maxAge: "1h", index: false }));

  const render = (
    res: Response,
    view: string,
    data: object,
    done: (error: Error | null, html?: string) => void,
  ) =>
    // Indiekit's error handler renders "error", a name without the extension our routes write.
    views.environment.render(
      view.endsWith(".njk") ? view : `${view}.njk`,
      { ...res.locals, ...data },
      (error, html) => done(error, html ?? ""),
    );

  const locals: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    const chosen = (req as Request & { getLocale?: () => string }).getLocale?.();
    formattersFor(chosen)(req, res, () => {
      res.locals.assetsPath = assetsPath;
      res.locals.underIndiekit = true;
      res.locals.application = { name: site.name };
      res.locals.publication = site.publication;
      res.locals.currentPath = req.originalUrl.split("?")[0];
      res.locals.auth = req.auth;
      res.locals.navigation = [
        { href: site.mountPath, text: "syndicate.title", current: req.path === "/" || req.path === "" },
      ];
      res.locals.renderTemplate = (
        view: string,
        data: object,
        done: (error: Error | null, html?: string) => void,
      ) => render(res, view, data, done);
      // Our routes render a whole page with res.render: ours, not Indiekit's views.
      res.render = ((
        view: string,
        data?: object,
        callback?: (error: Error | null, html?: string) => void,
      ) => {
        render(res, view, data ?? {}, (error, html) => {
          if (callback) return callback(error, html);
          if (error) return (req.next ?? next)(error);
          res.type("html").send(html);
        });
      }) as Response["render"];
      next();
    });
  };
  return { assets, locals };
}
