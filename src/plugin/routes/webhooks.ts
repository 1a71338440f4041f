// Public webhook routes (spec §5, §6): a signed "deploy succeeded" starts the endpoint's own batch
// run, with trigger "webhook", the same lease and the same ledger. Forged or unsigned requests, and
// deploys that are not production, start nothing.
import type { RequestHandler } from "express";
import { HttpError } from "../../contract/http-error.ts";
import { SyndicationShuttingDownError } from "../../syndication/syndication.ts";
import type { PostResult } from "../../syndication/types.ts";
import { syndicationOr501 } from "../responses/no-database.ts";
import { WebhookDeliveries } from "../webhooks/deliveries.ts";
import { RawBodyError, readRawBody } from "../webhooks/raw-body.ts";
import { carriesNetlifySignature, receiveWebhook } from "../webhooks/receive.ts";
import type { WebhookProvider } from "../webhooks/webhook-provider.ts";
import type { RouteContext } from "./route-context.ts";

export function webhookRoute(context: RouteContext, provider: WebhookProvider): RequestHandler {
  return async (req, res, next) => {
    // At {mountPath} itself only Netlify's signed request is a webhook; the rest goes on to the
    // authenticated endpoint.
    if (provider === "netlify" && req.path === "/" && !carriesNetlifySignature(req.headers)) return next();
    const syndication = syndicationOr501(context);
    let rawBody: Buffer;
    try {
      rawBody = await readRawBody(req, { limit: context.options.webhook.maxBodyBytes });
    } catch (error) {
      if (error instanceof RawBodyError)
        throw new HttpError(error.status, error.error, error.message, error.headers);
      throw error;
    }
    const verdict = await receiveWebhook(
      { provider, headers: req.headers, rawBody },
      {
        secret: context.webhookSecret(),
        contexts: context.options.webhook.contexts,
      },
    );
    if (!("deliveryKeys" in verdict)) throw new HttpError(401, "unauthorized", verdict.reason);
    // Verified, so the ids are the sender's: one seen within the day is a captured request sent again.
    const database = context.server()?.database;
    const deliveries = database ? new WebhookDeliveries(database) : null;
    if (deliveries && !(await deliveries.first(verdict.deliveryKeys))) {
      context.server()?.logger.warn("A webhook delivery already received was sent again; nothing started", {
        provider,
      });
      res.status(200).json({ ignored: "replayed" });
      return;
    }
    if (!verdict.start) {
      if (verdict.outcome === "invalid_body") throw new HttpError(400, "invalid_request", verdict.reason);
      res.status(200).json({ status: verdict.outcome, reason: verdict.reason });
      return;
    }
    // The site has just changed: its feeds are read first, so that the run sends their new entries.
    await context.feeds()?.fetchAll();
    let run: Awaited<ReturnType<typeof syndication.runs.startBatch>>;
    try {
      run = await syndication.runs.startBatch("webhook");
    } catch (error) {
      if (error instanceof SyndicationShuttingDownError) {
        // Nothing was carried out: the resend this answer asks for must not count as a replay.
        await deliveries?.forget(verdict.deliveryKeys);
        throw new HttpError(
          503,
          "service_unavailable",
          "The server is shutting down; send the webhook again",
        );
      }
      throw error;
    }
    context.server()?.logger.info("Deploy webhook started a syndication run", { provider, runId: run.id });
    // The run goes on to its end even when the provider hangs up before the answer.
    const results: PostResult[] = [];
    for await (const result of run.results) results.push(result);
    const summary = await run.done;
    if (!res.writableEnded && !res.destroyed)
      res.status(200).json({ status: "syndicated", results, summary });
  };
}
