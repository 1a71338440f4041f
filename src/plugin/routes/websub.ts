// The public WebSub callback of the feeds (issue 29 item 5): `{mountPath}/websub/:id`. The hub
// verifies a subscription with a GET and delivers notifications with a signed POST; the raw body
// is read here (at most 5 MB), the signature and everything else are the subscriber's to check
// (src/sources/feeds/http/websub/callback.ts). A correctly signed notification reads its feed at once.
// Express 5 forwards a rejection to the error handler: no try/catch here.
import type { RequestHandler } from "express";
import { HttpError } from "../../contract/http-error.ts";
import { DEFAULT_NOTIFICATION_MAX_BYTES } from "../../sources/feeds/http/websub/callback.ts";
import { RawBodyError, readRawBody } from "../webhooks/raw-body.ts";
import type { RouteContext } from "./index.ts";

export function webSubCallbackRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const feeds = context.feeds();
    if (!feeds) throw new HttpError(404, "not_found", "No feed is read by this server");
    let rawBody: Buffer | undefined;
    if (req.method === "POST") {
      try {
        rawBody = await readRawBody(req, { limit: DEFAULT_NOTIFICATION_MAX_BYTES });
      } catch (error) {
        if (error instanceof RawBodyError)
          throw new HttpError(error.status, error.error, error.message, error.headers);
        throw error;
      }
    }
    const response = await feeds.webSubCallback({
      method: req.method,
      subscriptionId: String(req.params.id ?? ""),
      query: req.query as Record<string, string | string[] | undefined>,
      headers: req.headers,
      ...(rawBody ? { rawBody } : {}),
    });
    res.status(response.status).set(response.headers).send(response.body);
  };
}
