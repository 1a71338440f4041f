// The feed parser and normaliser (decision 0034): a pure module, no network, no database.
export type {
  EntryChoices,
  FeedAuthor,
  FeedEnclosure,
  FeedEntry,
  FeedFormat,
  FeedProblem,
  ParsedFeed,
  ParseFeedInput,
  TargetChoice,
} from "./feed-entry.ts";
export { FeedParseError, type FeedParseErrorCode } from "./feed-parse-error.ts";
export {
  FeedParser,
  type FeedParserOptions,
  PARSE_MEMORY_LIMIT_MB,
  PARSE_TIME_LIMIT_MS,
} from "./feed-parser.ts";
export { type NewestEntries, newestEntries } from "./newest-entries.ts";
export { parseFeed } from "./parse-feed.ts";
