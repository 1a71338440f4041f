// Save Page Now 2 (the Wayback Machine's capture API): POST /save starts a capture job, and
// GET /save/status/<job_id> says "pending" until it is "success" (with the capture's timestamp)
// or "error" (with an error code in status_ext, e.g. "error:not-found").
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import {
  parseJson,
  readJson,
  readText,
  refusal,
  retryAfterSeconds,
  send,
  type Target,
  type TargetMessage,
  unreachable,
} from "../shared/http.ts";
import { SyndicationError } from "../syndication-error.ts";

const jobSchema = z.looseObject({
  job_id: z.string().optional(),
  status: z.string().optional(),
  status_ext: z.string().optional(),
  message: z.string().optional(),
});

const statusSchema = z.looseObject({
  status: z.enum(["pending", "success", "error"]),
  timestamp: z.string().optional(),
  original_url: z.string().optional(),
  status_ext: z.string().optional(),
  message: z.string().optional(),
});

/** Errors that the same capture request will meet again. Others (timeouts, busy) may pass. */
const permanentErrors = new Set([
  "error:invalid-url-syntax",
  "error:blocked",
  "error:blocked-url",
  "error:no-access",
  "error:unauthorized",
  "error:filesize-limit",
  "error:ftp-access-denied",
  "error:method-not-allowed",
  "error:network-authentication-required",
]);

/** The archive's ways of saying "too many captures": per minute, per day, or sessions at once. */
const rateLimitErrors = new Set([
  "error:too-many-requests",
  "error:too-many-daily-captures",
  "error:user-session-limit",
]);

const archiveMessage = (body: unknown): TargetMessage | undefined => {
  const parsed = jobSchema.safeParse(body);
  if (!parsed.success) return undefined;
  return {
    ...(parsed.data.message ? { message: parsed.data.message } : {}),
    ...(parsed.data.status_ext ? { code: parsed.data.status_ext } : {}),
  };
};

function rateLimited(status: number | undefined, said: string | undefined, retryAfterSeconds?: number) {
  const detail = said ? ` (${said})` : "";
  return new SyndicationError(
    `Internet Archive: ${status ? `${status} ` : ""}rate limited, try again later${detail}`,
    {
      permanent: false,
      ...(status ? { status } : {}),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    },
  );
}

function captureError(url: string, code: string | undefined, message: string | undefined) {
  if (code && rateLimitErrors.has(code)) return rateLimited(undefined, message);
  const detail = [message, code ? `(${code})` : undefined].filter(Boolean).join(" ");
  return new SyndicationError(
    `Internet Archive: could not archive ${url}: ${detail || "the capture failed"}`,
    {
      permanent: code !== undefined && permanentErrors.has(code),
      ...(code ? { code } : {}),
    },
  );
}

export interface SavePageNowOptions {
  serviceUrl: string;
  /** "accessKey:secretKey", or undefined to ask without signing in. */
  credentials: string | undefined;
  pollIntervalMs: number;
}

export async function savePageNow(target: Target, options: SavePageNowOptions, url: string): Promise<string> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.credentials) headers.authorization = `LOW ${options.credentials}`;

  const started = await send(target, `${options.serviceUrl}/save`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ url }),
  });
  if (started.status === 429) {
    // The archive may say more in JSON, or answer with an HTML page that is no use to quote.
    const said = archiveMessage(parseJson(await readText(target, started).catch(() => "")))?.message;
    throw rateLimited(429, said, retryAfterSeconds(started));
  }
  if (!started.ok) {
    const error = await refusal(target, started, archiveMessage);
    if (started.status !== 401 && started.status !== 403) throw error;
    const hint = options.credentials
      ? "Check INTERNET_ARCHIVE_ACCESS_KEY and INTERNET_ARCHIVE_SECRET_KEY."
      : "Save Page Now needs keys: set INTERNET_ARCHIVE_ACCESS_KEY and INTERNET_ARCHIVE_SECRET_KEY.";
    const said = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    throw new SyndicationError(`${said} ${hint}`, { status: started.status, permanent: true });
  }
  const job = await readJson(target, started, jobSchema, "the capture request");
  if (job.status === "error" || !job.job_id) throw captureError(url, job.status_ext, job.message);

  const statusUrl = `${options.serviceUrl}/save/status/${encodeURIComponent(job.job_id)}`;
  for (;;) {
    const response = await send(target, statusUrl, { headers });
    if (response.status === 429) {
      await response.body?.cancel().catch(() => {});
      throw rateLimited(429, undefined, retryAfterSeconds(response));
    }
    if (!response.ok) throw await refusal(target, response, archiveMessage);
    const status = await readJson(target, response, statusSchema, "the capture status");
    if (status.status === "success") {
      if (!status.timestamp)
        throw captureError(url, undefined, "the archive reported success without a timestamp");
      return `${options.serviceUrl}/web/${status.timestamp}/${status.original_url ?? url}`;
    }
    if (status.status === "error") throw captureError(url, status.status_ext, status.message);
    try {
      await sleep(options.pollIntervalMs, undefined, { signal: target.signal });
    } catch (error) {
      throw unreachable(target, statusUrl, error);
    }
  }
}
