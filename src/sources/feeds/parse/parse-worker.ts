// The thread a FeedParser runs (feed-parser.ts): reads one feed per message with parseFeed and
// answers with its newest entries, or with the FeedParseError's code and message (an Error does
// not cross threads as itself). Nothing here touches the network or the database.
import { parentPort } from "node:worker_threads";
import { FeedParseError } from "./feed-parse-error.ts";
import { type ParseAnswer, type ParseRequest, READY } from "./feed-parser.ts";
import { newestEntries } from "./newest-entries.ts";
import { parseFeed } from "./parse-feed.ts";

function answer(request: ParseRequest): ParseAnswer {
  try {
    const { feed, total, omitted } = newestEntries(parseFeed(request.input), request.maxEntries);
    return { ok: true, feed, total, omitted };
  } catch (error) {
    if (error instanceof FeedParseError) return { ok: false, code: error.code, message: error.message };
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      code: "unreadable",
      message: `The feed could not be read (${reason.slice(0, 200)}).`,
    };
  }
}

parentPort?.on("message", (request: ParseRequest) => {
  // Cloning the answer runs the entries' lazy getters (their plain text): here, off the server's thread.
  try {
    parentPort?.postMessage(answer(request));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    parentPort?.postMessage({
      ok: false,
      code: "unreadable",
      message: `The feed could not be read (${reason.slice(0, 200)}).`,
    } satisfies ParseAnswer);
  }
});
// The modules are loaded: the parser's time limits count from here, not from the thread's start.
parentPort?.postMessage(READY);
