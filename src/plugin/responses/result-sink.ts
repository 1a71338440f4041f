// How results leave the endpoint. The core emits PostResults; a sink formats them for one client:
// JSON at the end, NDJSON or server-sent events as they come, or a redirect for a browser's form.
import { countInto, emptySummary } from "../../syndication/runs/post-result.ts";
import type { PostResult, RunSummary } from "../../syndication/types.ts";

export interface ResultSink {
  /** Called once per post, in the order processed. Must not throw when the client has gone. */
  result(result: PostResult): void;
  /** Called once at the end of the run. */
  end(summary: RunSummary): void | Promise<void>;
}

export function summarize(results: Iterable<PostResult>): RunSummary {
  const summary = emptySummary();
  for (const result of results) countInto(summary, result);
  return summary;
}
