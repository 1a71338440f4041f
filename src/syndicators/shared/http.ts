// The one way syndicators talk HTTP: every request carries the run's AbortSignal, and every failure
// (no answer, a refusal, an answer we cannot read) becomes a SyndicationError that starts with the
// target's name and carries the target's own message.
import type { z } from "zod";
import { isPermanentStatus, SyndicationError } from "../syndication-error.ts";

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

/** Turns a thrown fetch or body-reading error into a SyndicationError. */
export function unreachable(target: Target, url: string, error: unknown): SyndicationError {
  if (error instanceof SyndicationError) return error;
  const origin = new URL(url).origin;
  if (target.signal.aborted) {
    return new SyndicationError(
      `${target.name}: ${origin} did not answer in time; the request was cancelled, so it may or may not have been carried out`,
      { permanent: false, cause: error },
    );
  }
  return new SyndicationError(`${target.name}: could not reach ${origin}: ${describeCause(error)}`, {
    permanent: false,
    cause: error,
  });
}

/** fetch() with the target's signal; throws a SyndicationError when no answer comes. */
export async function send(target: Target, url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: target.signal, redirect: init.redirect ?? "follow" });
  } catch (error) {
    throw unreachable(target, url, error);
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

/** The seconds a Retry-After header asks for (as a delay or as a date), if it is there. */
export function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  const flat = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > quotedBodyLimit ? `${flat.slice(0, quotedBodyLimit)}…` : flat;
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
  const message = overrides.message || said?.message || quote(text) || response.statusText;
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
