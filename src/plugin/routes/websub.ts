// The public WebSub callback of the feeds: `{mountPath}/websub/:id`. The hub verifies a
// subscription with a GET and delivers notifications with a signed POST. The subscription is looked
// up first: an id that names none is refused before any of the body is read, through the error
// handler, so that the public routes' limit counts it against the client's address (a stranger's
// guesses use up the stranger's own budget; a request for a real subscription is never counted, so
// the hub's deliveries go on, whoever shares its address). The raw body (at most 5 MB) is read only
// for a subscription that takes deliveries; the signature and everything else are the subscriber's
// to check (src/sources/feeds/http/websub/callback.ts).
// Express 5 forwards a rejection to the error handler: no try/catch here beyond the body's.
import type { RequestHandler } from "express";
import { HttpError } from "../../contract/http-error.ts";
import { DEFAULT_NOTIFICATION_MAX_BYTES } from "../../sources/feeds/http/websub/callback.ts";
import { RawBodyError, readRawBody } from "../webhooks/raw-body.ts";
import type { RouteContext } from "./route-context.ts";

export function webSubCallbackRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const feeds = context.feeds();
    if (!feeds) throw new HttpError(404, "not_found", "No feed is read by this server");
    const readBody = async (): Promise<Uint8Array> => {
      try {
        return await readRawBody(req, { limit: DEFAULT_NOTIFICATION_MAX_BYTES });
      } catch (error) {
        if (error instanceof RawBodyError)
          throw new HttpError(error.status, error.error, error.message, error.headers);
        throw error;
      }
    };
    const response = await feeds.webSubCallback({
      method: req.method,
      subscriptionId: String(req.params.id ?? ""),
      query: req.query as Record<string, string | string[] | undefined>,
      headers: req.headers,
      readBody,
    });
    if (response.unknown)
      throw new HttpError(
        response.status,
        response.status === 410 ? "gone" : "not_found",
        "No such subscription",
        response.headers.connection ? { Connection: response.headers.connection } : {},
      );
    res.status(response.status).set(response.headers).send(response.body);
  };
}
