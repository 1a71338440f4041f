// The requests a connector makes while connecting or disconnecting an account: the instance, PDS or
// endpoint URL is the user's input on a form, so it is fetched under the outgoing-fetch rules
// (src/net/safe-fetch.ts: no private address unless fetch.allowPrivate). A request that carries a
// credential never follows a redirect, so the credential cannot be led to another origin.
import { AccountError, type ConnectContext } from "../../contract/accounts.ts";
import { OutgoingFetchError, safeFetch } from "../../net/safe-fetch.ts";

const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 15_000;

export interface AccountAnswer {
  status: number;
  /** The JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

/** A URL the user typed: https:// is assumed when no scheme is written; only the origin is kept. */
export function serviceOrigin(text: string, field: string): string {
  const written = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    throw new AccountError(`${field}: not a web address`, "invalid", "notAnAddress", { field });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new AccountError(`${field}: not a web address`, "invalid", "notAnAddress", { field });
  return url.origin;
}

export async function accountRequest(
  url: string,
  context: ConnectContext,
  request: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string } = {},
): Promise<AccountAnswer> {
  let answer: Awaited<ReturnType<typeof safeFetch>>;
  try {
    answer = await safeFetch(url, {
      policy: { allowPrivate: context.allowPrivate },
      maxBytes: MAX_BYTES,
      timeoutMs: TIMEOUT_MS,
      maxRedirects: 0,
      signal: context.signal,
      headers: { accept: "application/json", ...request.headers },
      ...(request.method ? { method: request.method } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
  } catch (error) {
    const host = hostOf(url);
    if (error instanceof OutgoingFetchError && error.kind === "refused")
      throw new AccountError(`${host} is on a private address`, "invalid", "privateAddress", { host });
    throw new AccountError(`${host} could not be reached`, "invalid", "unreachable", { host });
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(answer.body).toString("utf8"));
  } catch {
    json = undefined;
  }
  return { status: answer.status, json };
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
