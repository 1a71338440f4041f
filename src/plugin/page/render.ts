// Renders one of the page's templates to a string (for fragments inside a stream or beside another
// fragment), with the same locals a full page gets: t, formatDate, csrfToken, …
import type { Response } from "express";

type RenderTemplate = (
  view: string,
  data: object,
  done: (error: Error | null, html?: string) => void,
) => void;

export function renderView(res: Response, view: string, data: Record<string, unknown>): Promise<string> {
  // A page of our own inside Indiekit renders with our views (src/plugin/indiekit/own-host.ts).
  const own = res.locals.renderTemplate as RenderTemplate | undefined;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, html?: string) => {
      if (error) reject(error);
      else resolve((html ?? "").trim());
    };
    if (own) own(view, data, done);
    else res.app.render(view, { ...res.locals, ...data }, done);
  });
}
