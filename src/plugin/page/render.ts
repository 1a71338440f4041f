// Renders one of the page's templates to a string (for fragments inside a stream or beside another
// fragment), with the same locals a full page gets: t, formatDate, csrfToken, …
import type { Response } from "express";

export function renderView(res: Response, view: string, data: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => {
    res.app.render(view, { ...res.locals, ...data }, (error: Error | null, html?: string) => {
      if (error) reject(error);
      else resolve((html ?? "").trim());
    });
  });
}
