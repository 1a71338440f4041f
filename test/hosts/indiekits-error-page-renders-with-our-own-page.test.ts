// Inside Indiekit with a database, our routes render with possekit's views (src/hosts/indiekit/
// own-page.ts), and so does Indiekit's error handler, which calls res.render("error", { content, … })
// (packages/indiekit/lib/middleware/error.js): the reader gets our error page with Indiekit's
// message, in the language Indiekit chose, not Express's stack trace for "template not found".
import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import express, { type NextFunction, type Request, type Response } from "express";
import { ownPage } from "../../src/hosts/indiekit/own-page.ts";

describe("Indiekit's error handler under the plug-in's own page", () => {
  it("renders our error page with Indiekit's message, in the reader's language", async () => {
    const page = ownPage({
      mountPath: "/posse",
      name: "Indiekit",
      publication: { me: "https://blog.example/", name: "Blog" },
      timezone: "UTC",
      production: false,
    });
    const app = express();
    app.use((req, _res, next) => {
      Object.assign(req, { getLocale: () => "de" });
      next();
    });
    app.use("/posse", page.locals, (_req, _res, next) =>
      next(Object.assign(new Error("Eine Nachricht von Indiekit"), { status: 403, name: "ForbiddenError" })),
    );
    // Indiekit's handler, as it renders a page.
    app.use((error: Error & { status: number }, _req: Request, res: Response, _next: NextFunction) => {
      res.status(error.status);
      res.render("error", { title: "x", content: error.message, name: error.name, status: error.status });
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/posse`, {
        headers: { accept: "text/html" },
      });
      const html = await response.text();
      assert.equal(response.status, 403);
      assert.match(html, /<html lang="de">/, html.slice(0, 300));
      assert.match(html, /Eine Nachricht von Indiekit/);
      assert.doesNotMatch(html, /template not found/);
    } finally {
      server.close();
    }
  });
});
