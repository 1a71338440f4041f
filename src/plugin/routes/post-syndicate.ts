// POST {mountPath}: with source_url, that one post now; without, every awaiting post, oldest first,
// under the batch lease. Answers JSON, NDJSON, server-sent events or a redirect, as the client asks.
import type { Request, RequestHandler, Response } from "express";
import { hasScope } from "../../contract/auth.ts";
import { setFlash } from "../../contract/flash.ts";
import { HttpError, insufficientScope } from "../../contract/http-error.ts";
import type { Translate } from "../../contract/i18n.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import { SyndicationInProgressError } from "../../syndication/syndication.ts";
import type { RunSummary } from "../../syndication/types.ts";
import { renderView } from "../page/render.ts";
import { runStatusView } from "../page/run-status.ts";
import { pageServices, translatorOf } from "../page/services.ts";
import { keepTypedText, typedTextOf } from "../page/typed-text.ts";
import { formRedirectSink } from "../responses/form-redirect.ts";
import { htmxSseSink } from "../responses/htmx-sse.ts";
import { jsonSink } from "../responses/json.ts";
import { syndicationOr501 } from "../responses/no-database.ts";
import { type ResultSink, summarize } from "../responses/result-sink.ts";
import { ndjsonSink, sseJsonSink } from "../responses/streams.ts";
import { sourceUrlOf } from "../source-url.ts";
import { redirectUriOf } from "./redirect-uri.ts";
import type { RouteContext } from "./route-context.ts";

const BODY_TYPES = ["application/x-www-form-urlencoded", "application/json", "application/*+json"];

function hasBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

/** A browser's form (or a peer-style redirect_uri) rather than an API or streaming client. */
function wantsFormRedirect(req: Request): boolean {
  const accept = req.get("accept") ?? "";
  if (accept.includes("text/event-stream") || accept.includes("application/x-ndjson")) return false;
  return redirectUriOf(req) !== undefined || req.accepts(["json", "html"]) === "html";
}

function chooseSink(req: Request, res: Response, context: RouteContext, single: boolean): ResultSink {
  const accept = req.get("accept") ?? "";
  if (accept.includes("text/event-stream")) {
    return req.get("hx-request") ? htmxSseSink(req, res, context, single) : sseJsonSink(res);
  }
  if (accept.includes("application/x-ndjson")) return ndjsonSink(res);
  // A redirect_uri asks for a redirect whatever the client accepts, as the peer answers it.
  if (wantsFormRedirect(req))
    return formRedirectSink(res, redirectUriOf(req) ?? context.mountPath, single, context.mountPath);
  return jsonSink(res, single);
}

/**
 * The row's preview was open with text in it (decision 0046): that text is saved with the send when it
 * differs from the target's; when the service would refuse it, nothing is sent and the user is told
 * why (true). A post that does not exist is left to the send's own answer.
 */
async function refusedTypedText(req: Request, res: Response, context: RouteContext, sourceUrl: string) {
  const typed = typedTextOf(req.body);
  if (!typed) return false;
  const services = pageServices(context, res);
  const post = await services.posts.findByUrl(sourceUrl);
  if (!post || post.deleted) return false;
  const t = translatorOf(res);
  const kept = await keepTypedText(services, t, post, typed);
  if (kept.kind !== "refused") return false;
  const text = t("syndicate.preview.notSent", { reason: kept.text });
  if (req.get("hx-request")) {
    const html = await renderView(res, "syndicate/_summary.njk", {
      summaryView: { kind: "error", text, link: null },
    });
    res.status(422).type("html").send(html);
  } else if (wantsFormRedirect(req)) {
    setFlash(res, { kind: "error", text });
    res.redirect(303, redirectUriOf(req) ?? context.mountPath);
  } else {
    throw new HttpError(422, "invalid_request", text);
  }
  return true;
}

/**
 * `retryAll`: POST {mountPath}/retry, the same batch that also sends every target that needs the
 * user (refused, of unknown outcome, waiting for its next try), after the user fixed the cause.
 */
export function postSyndicateRoute(options: RouteContext, { retryAll = false } = {}): RequestHandler {
  return async (req, res) => {
    const syndication = syndicationOr501(options);
    if (!hasScope(req.auth, "update")) throw insufficientScope("update");
    if (hasBody(req) && !req.is(BODY_TYPES)) {
      throw new HttpError(
        415,
        "unsupported_media_type",
        "Send the request without a body, or as application/x-www-form-urlencoded or application/json",
      );
    }
    const sourceUrl = sourceUrlOf(req);
    if (retryAll && sourceUrl)
      throw new HttpError(
        400,
        "invalid_request",
        `${options.mountPath}/retry retries every post; to retry one, use ${options.mountPath}/posts/<id>/retry`,
      );
    // Validate redirect_uri before anything starts.
    redirectUriOf(req);

    if (sourceUrl) {
      // Words typed into the row's open preview go with the send, or stop it when refused.
      if (await refusedTypedText(req, res, options, sourceUrl)) return;
      const result = await syndication.runs.syndicatePost(sourceUrl, "manual");
      const sink = chooseSink(req, res, options, true);
      sink.result(result);
      await sink.end(summarize([result]));
      return;
    }

    let run: Awaited<ReturnType<Syndication["runs"]["startBatch"]>>;
    try {
      run = await syndication.runs.startBatch(retryAll ? "retry" : "batch", { retryFailed: retryAll });
    } catch (error) {
      if (error instanceof SyndicationInProgressError) {
        const t = res.locals.t as Translate;
        const held = {
          since: (res.locals.formatDate as (d: Date) => string)(error.inProgress.since),
          trigger: t(`syndicate.trigger.${error.inProgress.trigger}`),
        };
        if (req.get("hx-request")) {
          // The page: one message naming the run that holds the lease, and the status and
          // button as they now are (the run in progress, the button unavailable).
          const html = await renderView(res, "syndicate/events/in-progress.njk", {
            live: true,
            mountPath: options.mountPath,
            held,
            status: await runStatusView(syndication),
          });
          res.status(409).setHeader("Retry-After", String(error.retryAfterSeconds));
          res.type("html").send(html);
          return;
        }
        if (wantsFormRedirect(req)) {
          // A browser without JavaScript comes back to the page and reads why nothing started.
          setFlash(res, { kind: "info", text: t("syndicate.flash.inProgress", held) });
          res.redirect(303, redirectUriOf(req) ?? options.mountPath);
          return;
        }
      }
      // An API client's 409, and the 503 of shutdown: core-errors.ts.
      throw error;
    }
    const sink = chooseSink(req, res, options, false);
    // Results are consumed as they come; if the client goes away the run goes on without it.
    for await (const result of run.results) sink.result(result);
    const summary: RunSummary = await run.done;
    await sink.end(summary);
  };
}
