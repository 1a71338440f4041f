// What goes wrong between possekit and a remote Micropub server, sorted by what the user or the
// poller does about it: a refused token is the user's to fix (the page and /health say which
// setting), an unreachable or failing server is asked again at the next poll, and an answer that
// is not Micropub names the endpoint so the user can check its URL.

export type MicropubSourceFailure =
  /** 401/403: the token is wrong, expired or lacks a scope; asking again cannot help. */
  | "refused"
  /** 5xx, 429, a timeout or no connection: passes with time; asked again at the next poll. */
  | "unavailable"
  /** Any other answer that is not what Micropub promises (a 400 to q=source, HTML, bad JSON). */
  | "invalid";

export class MicropubSourceError extends Error {
  readonly kind: MicropubSourceFailure;
  /** The HTTP status the server answered, when it answered. */
  readonly status?: number;
  /** Seconds the server asked us to wait (Retry-After), when it said. */
  readonly retryAfterSeconds?: number;

  constructor(
    kind: MicropubSourceFailure,
    message: string,
    options: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MicropubSourceError";
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** A mistake of the configuration (the token, the endpoint's URL) rather than of the moment. */
  get isConfiguration(): boolean {
    return this.kind !== "unavailable";
  }
}
