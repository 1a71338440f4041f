// The one way syndicators talk HTTP: every request carries the run's AbortSignal, and every failure
// (no answer, a refusal, an answer we cannot read) becomes a SyndicationError that starts with the
// target's name and carries the target's own message.
import type { z } from "zod";
import { isPermanentStatus, SyndicationError } from "../../contract/syndication-error.ts";
import { retryAfterDelayMs } from "../../net/retry-after.ts";

/** Who we are talking to, for error messages: "Mastodon", "Bluesky", … */
export interface Target {
  name: string;
  signal: AbortSignal;
}

/** Longest stretch of a non-JSON error body quoted in a message. */
const quotedBodyLimit = 200;

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici hides the useful part (ECONNREFUSED, ENOTFOUND…) in `cause`.
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause ? `${error.message} (${cause})` : error.message;
}

/** Errors that mean no connection was made, so the request cannot have been carried out. */
const neverConnected = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

function causeCode(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * Turns a thrown fetch or body-reading error into a SyndicationError. `sent` says whether the
 * request could have reached the target (false only for a read-only request): then a cut or
 * broken exchange leaves its outcome uncertain.
 */
export function unreachable(target: Target, url: string, error: unknown, sent = true): SyndicationError {
  if (error instanceof SyndicationError) return error;
  const origin = new URL(url).origin;
  if (target.signal.aborted) {
    return new SyndicationError(
      `${target.name}: ${origin} did not answer in time; the request was cancelled, so it may or may not have been carried out`,
      { permanent: false, uncertain: sent, cause: error },
    );
  }
  const code = causeCode(error);
  return new SyndicationError(`${target.name}: could not reach ${origin}: ${describeCause(error)}`, {
    permanent: false,
    uncertain: sent && !(code !== undefined && neverConnected.has(code)),
    cause: error,
  });
}

const readOnly = (method: string | undefined) => ["GET", "HEAD", undefined].includes(method?.toUpperCase());

/**
 * fetch() with the target's signal; throws a SyndicationError when no answer comes. A read follows
 * redirects: Node's fetch sends Authorization, Cookie and Proxy-Authorization to the same origin
 * only (Fetch standard, HTTP-redirect fetch, step 13), the only credential headers syndicators
 * use. A request with a body is not redirected (its 3xx is the answer): a 307 or 308 would send
 * the body again, to wherever it points, and a body can be a credential itself (Bluesky's sign-in
 * carries the app password).
 */
export async function send(target: Target, url: string, init: RequestInit = {}): Promise<Response> {
  const redirect = init.redirect ?? (readOnly(init.method) ? "follow" : "manual");
  try {
    return await fetch(url, { ...init, signal: target.signal, redirect });
  } catch (error) {
    throw unreachable(target, url, error, !readOnly(init.method));
  }
}

/** Reads a body as text, turning a cancelled or broken read into a SyndicationError. */
export async function readText(target: Target, response: Response): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw unreachable(target, response.url || "http://unknown/", error);
  }
}

/**
 * Epoch seconds above this are a moment, below it a delay: a delay of 10⁹ s would be 31 years, and
 * services use both readings of `RateLimit-Reset` (the IETF draft: a delay; the Bluesky PDS: epoch
 * seconds).
 */
const epochSecondsFloor = 1_000_000_000;

function secondsUntil(moment: number, now: number): number {
  return Math.max(0, Math.ceil((moment - now) / 1000));
}

/**
 * A reset header's moment or delay, in seconds from now: epoch seconds, or what Retry-After holds
 * (a delay or a date, read by src/net/retry-after.ts).
 */
function resetSeconds(value: string, now: number): number | undefined {
  const number = Number(value);
  if (Number.isFinite(number) && number > epochSecondsFloor) return secondsUntil(number * 1000, now);
  const asked = retryAfterDelayMs(value, now);
  return asked === undefined ? undefined : Math.ceil(asked / 1000);
}

/**
 * How long the service asked us to wait, in seconds, from whichever signal it sends: `Retry-After`
 * (a delay or an HTTP date), Mastodon's `X-RateLimit-Reset` (an ISO time) or the IETF and Bluesky
 * `RateLimit-Reset` (a delay or epoch seconds). Reset headers count only when the answer is a 429 or
 * says nothing is left: on other answers they describe a window that has not been used up.
 */
export function retryAfterSeconds(response: Response, now = Date.now()): number | undefined {
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter) {
    const seconds = resetSeconds(retryAfter, now);
    if (seconds !== undefined) return seconds;
  }
  const exhausted =
    response.status === 429 ||
    response.headers.get("x-ratelimit-remaining") === "0" ||
    response.headers.get("ratelimit-remaining") === "0";
  if (!exhausted) return undefined;
  for (const name of ["x-ratelimit-reset", "ratelimit-reset"]) {
    const value = response.headers.get(name);
    const seconds = value ? resetSeconds(value, now) : undefined;
    if (seconds !== undefined) return seconds;
  }
  return undefined;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An HTML error page (a proxy's "502 Bad Gateway", say): its title says it all, once. */
function htmlTitle(text: string): string | undefined {
  if (!/^\s*<(!doctype\s+html|html|head|body|title|center|h1)\b/i.test(text)) return undefined;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(text)?.[1];
  return title?.replace(/\s+/g, " ").trim() ?? "";
}

function quote(text: string): string {
  const flat = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > quotedBodyLimit ? `${flat.slice(0, quotedBodyLimit)}…` : flat;
}

/** The words of a non-JSON error body, without repeating the status code the message starts with. */
function plainMessage(text: string, response: Response): string {
  const title = htmlTitle(text);
  const words = title === undefined ? quote(text) : title || response.statusText;
  return words.replace(new RegExp(`^${response.status}\\b\\s*`), "");
}

/** What a target's JSON error body says: its message and, if it has one, its error name. */
export interface TargetMessage {
  message?: string;
  code?: string;
}

/**
 * The SyndicationError for an unsuccessful response: "<Target>: <status> <the target's message>".
 * `extract` reads the target's JSON error shape; without one, the body's text (or the status text)
 * is quoted.
 */
export async function refusal(
  target: Target,
  response: Response,
  extract: (body: unknown) => TargetMessage | undefined,
  overrides: { permanent?: boolean; message?: string } = {},
): Promise<SyndicationError> {
  const text = await readText(target, response).catch(() => "");
  const json = parseJson(text);
  const said = json === undefined ? undefined : extract(json);
  const message = overrides.message || said?.message || plainMessage(text, response) || response.statusText;
  const retryAfter = retryAfterSeconds(response);
  return new SyndicationError(`${target.name}: ${response.status} ${message}`.trimEnd(), {
    status: response.status,
    permanent: overrides.permanent ?? isPermanentStatus(response.status),
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    ...(said?.code ? { code: said.code } : {}),
  });
}

/** Reads and validates a JSON answer; an answer of the wrong shape is reported, not trusted. */
export async function readJson<Schema extends z.ZodType>(
  target: Target,
  response: Response,
  schema: Schema,
  what: string,
): Promise<z.output<Schema>> {
  const text = await readText(target, response);
  const result = schema.safeParse(parseJson(text));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` (${issue.path.join(".")}: ${issue.message})` : "";
  throw new SyndicationError(`${target.name}: unexpected answer to ${what}${where}`, {
    status: response.status,
    permanent: false,
  });
}
