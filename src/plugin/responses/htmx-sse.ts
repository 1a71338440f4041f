// Server-sent events for the admin page (htmx): each result as the HTML of its row, then a summary.
// Placeholder until the page's partials exist: JSON events, like any other SSE client.
import type { Request, Response } from "express";
import type { ResultSink } from "./result-sink.ts";
import { sseJsonSink } from "./streams.ts";

export function htmxSseSink(_req: Request, res: Response, _mountPath: string): ResultSink {
  return sseJsonSink(res);
}
