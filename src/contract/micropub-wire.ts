// What goes over the wire to another site's Micropub endpoint (https://micropub.spec.indieweb.org/),
// written once for both of our clients of one: the Micropub syndicator (creates, updates and deletes
// copies) and the remote Micropub source (lists posts, writes their copies' links back). Each keeps
// its own fetch rules and errors; the requests' headers and bodies and the reading of an error
// answer are these.
import { z } from "zod";

/** A Micropub update's operations, in Micropub's JSON syntax (values are arrays). */
export interface MicropubUpdate {
  replace?: Record<string, unknown[]>;
  add?: Record<string, unknown[]>;
  delete?: string[] | Record<string, unknown[]>;
}

/**
 * The headers of a request to the endpoint: the token as a bearer credential (never in the URL),
 * JSON asked for, and the body's type when there is one.
 */
export function micropubHeaders(token: string, contentType?: string): Record<string, string> {
  return {
    accept: "application/json",
    authorization: `Bearer ${token}`,
    ...(contentType === undefined ? {} : { "content-type": contentType }),
  };
}

/**
 * The URL of a query (Micropub 3.7: q=config, q=source…): the endpoint's own query (WordPress's
 * endpoint has one) kept, the asked parameters set.
 *
 * @example micropubQueryUrl("https://site.example/micropub", { q: "config" }) // "https://site.example/micropub?q=config"
 */
export function micropubQueryUrl(endpoint: string, query: Record<string, string>): string {
  const url = new URL(endpoint);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.href;
}

/** The JSON body of an update of the post at `url` (Micropub 3.4). */
export function micropubUpdateBody(url: string, update: MicropubUpdate): string {
  return JSON.stringify({ action: "update", url, ...update });
}

/** The form body of a delete of the post at `url` (Micropub 3.5), form-encoded as every server takes it. */
export function micropubDeleteBody(url: string): string {
  return new URLSearchParams({ action: "delete", url }).toString();
}

const errorAnswer = z.object({
  error: z.string().optional(),
  error_description: z.string().optional(),
  message: z.string().optional(),
});

/**
 * The server's own words in an error answer's JSON: Micropub's OAuth-style `error_description`,
 * else a `message` (some servers' own shape), else the `error` code; undefined when the body is not
 * of that shape.
 *
 * @example
 * micropubErrorWords({ error: "invalid_request", error_description: "no such post" });
 * // { message: "no such post", code: "invalid_request" }
 */
export function micropubErrorWords(body: unknown): { message?: string; code?: string } | undefined {
  const parsed = errorAnswer.safeParse(body);
  if (!parsed.success) return undefined;
  const { error, error_description: description, message } = parsed.data;
  const words = description ?? message ?? error;
  return { ...(words ? { message: words } : {}), ...(error ? { code: error } : {}) };
}
