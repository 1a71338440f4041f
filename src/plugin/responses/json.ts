import type { Response } from "express";
import type { PostResult, RunSummary } from "../../syndication/types.ts";
import type { ResultSink } from "./result-sink.ts";

/** A single post: its result. A batch: every result in order, then the summary, in one JSON body. */
export function jsonSink(res: Response, single: boolean): ResultSink {
  const results: PostResult[] = [];
  return {
    result: (result) => {
      results.push(result);
    },
    end: (summary: RunSummary) => {
      if (res.writableEnded || res.destroyed) return;
      if (single && results[0]) res.json(results[0]);
      else res.json({ results, summary });
    },
  };
}
