// The one error parseFeed throws: a body that is not a feed we can read, with the reason in words
// the user understands (the feed page shows `message`), and a code for the caller to count,
// localise or decide on (an HTML error page is likely to pass; malformed XML may need the site's
// owner). Anything else that goes wrong while parsing is wrapped in one of these, never thrown raw.

export type FeedParseErrorCode =
  /** Nothing, or only whitespace, was received. */
  | "empty"
  /** XML that is not well-formed; `message` says where. */
  | "malformed-xml"
  /** JSON that does not parse, or is not a JSON Feed. */
  | "malformed-json"
  /** An HTML page that looks like a server's or proxy's error page (502, "Not Found"...). */
  | "error-page"
  /** An HTML page without an h-feed or h-entry. */
  | "html-without-h-feed"
  /** XML, JSON or text that is none of the formats we read. */
  | "not-a-feed"
  /** A feed whose reading failed in a way none of the above describes (a library's own error). */
  | "unreadable"
  /** Reading it took longer than the parse thread's time limit, which then ended it (feed-parser.ts). */
  | "too-slow"
  /** Reading it needed more memory than the parse thread may use (feed-parser.ts). */
  | "too-large";

export class FeedParseError extends Error {
  constructor(
    readonly code: FeedParseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "FeedParseError";
  }
}
