// How results leave the endpoint. The core emits PostResults; a sink formats them for one client:
// JSON at the end, NDJSON or server-sent events as they come, or a redirect for a browser's form.
import type { PostResult, RunSummary } from "../../syndication/types.ts";

export interface ResultSink {
  /** Called once per post, in the order processed. Must not throw when the client has gone. */
  result(result: PostResult): void;
  /** Called once at the end of the run. */
  end(summary: RunSummary): void | Promise<void>;
}

export function summarize(results: Iterable<PostResult>): RunSummary {
  const summary: RunSummary = { posts: 0, syndicated: 0, partial: 0, failed: 0 };
  for (const result of results) addToSummary(summary, result);
  return summary;
}

export function addToSummary(summary: RunSummary, result: PostResult): void {
  summary.posts += 1;
  if (result.status === "syndicated") summary.syndicated += 1;
  else if (result.status === "partial") summary.partial += 1;
  else if (result.status === "failed") summary.failed += 1;
}
