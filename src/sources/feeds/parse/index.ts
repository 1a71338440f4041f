// The feed parser and normaliser (issue 29): a pure module, no network, no database.
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
export { parseFeed } from "./parse-feed.ts";
