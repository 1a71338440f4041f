// Save Page Now 2 (the Wayback Machine's capture API): POST /save starts a capture job, and
// GET /save/status/<job_id> says "pending" until it is "success" (with the capture's timestamp)
// or "error" (with an error code in status_ext, e.g. "error:not-found").
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { SyndicationError } from "../../contract/syndication-error.ts";
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

/** The archive's ways of saying "too many captures" for this account: per day, or sessions at once. */
const rateLimitErrors = new Set(["error:too-many-daily-captures", "error:user-session-limit"]);

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
  // Not our limit but the site's: its server told the archive's crawler to slow down.
  if (code === "error:too-many-requests")
    return new SyndicationError(
      `Internet Archive: ${new URL(url).host} answered the archive's crawler "too many requests" (error:too-many-requests); the capture is tried again later`,
      { permanent: false, code },
    );
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

/** An earlier attempt's capture job, and where to note a new one. */
export interface CaptureProgress {
  resumeFrom?: string;
  checkpoint?: (value: string) => Promise<void>;
}

/**
 * A job older than this is not polled again: captures end within minutes, and the archive answers
 * "pending" for a job id it no longer knows, so an old job would be polled until every timeout.
 */
const resumableForMs = 10 * 60 * 1000;

const savedJobSchema = z.object({ job: z.string().min(1), at: z.iso.datetime() });

/** The job id of a saved capture that is still worth polling, if any. */
function resumableJob(saved: string | undefined, now = Date.now()): string | undefined {
  if (!saved) return undefined;
  const parsed = savedJobSchema.safeParse(parseJson(saved));
  if (!parsed.success) return undefined;
  return now - Date.parse(parsed.data.at) < resumableForMs ? parsed.data.job : undefined;
}

/**
 * Checks the keys without capturing anything: GET /save/status/user answers the account's capture
 * slots ({"available": n, "processing": m}) when the keys are accepted, 401 when they are not.
 */
export async function checkKeys(target: Target, serviceUrl: string, credentials: string): Promise<void> {
  const response = await send(target, `${serviceUrl}/save/status/user`, {
    headers: { accept: "application/json", authorization: `LOW ${credentials}` },
  });
  if (response.status === 429) {
    await response.body?.cancel().catch(() => {});
    throw rateLimited(429, undefined, retryAfterSeconds(response));
  }
  if (!response.ok) throw await refusal(target, response, archiveMessage);
  await readJson(target, response, z.looseObject({ available: z.number() }), "the keys check");
}

/**
 * Archives `url` and returns the capture's address. A capture job started by an earlier attempt
 * (which ran out of time) is polled again first, so a slow capture is not started over and over.
 */
export async function savePageNow(
  target: Target,
  options: SavePageNowOptions,
  url: string,
  progress: CaptureProgress = {},
): Promise<string> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.credentials) headers.authorization = `LOW ${options.credentials}`;
  const earlierJob = resumableJob(progress.resumeFrom);
  if (earlierJob) {
    const resumed = await pollCapture(target, options, headers, url, earlierJob, true);
    if (resumed) return resumed;
  }

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
  await progress.checkpoint?.(JSON.stringify({ job: job.job_id, at: new Date().toISOString() }));
  return (await pollCapture(target, options, headers, url, job.job_id, false)) as string;
}

/**
 * Polls a capture job until it succeeds (its address) or fails (thrown). For a resumed job, a job
 * the archive no longer knows or that failed returns undefined: a new capture is asked for.
 */
async function pollCapture(
  target: Target,
  options: SavePageNowOptions,
  headers: Record<string, string>,
  url: string,
  jobId: string,
  resumed: boolean,
): Promise<string | undefined> {
  const statusUrl = `${options.serviceUrl}/save/status/${encodeURIComponent(jobId)}`;
  for (;;) {
    const response = await send(target, statusUrl, { headers });
    if (resumed && (response.status === 404 || response.status === 400)) {
      await response.body?.cancel().catch(() => {});
      return undefined;
    }
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
    if (status.status === "error") {
      if (resumed) return undefined;
      throw captureError(url, status.status_ext, status.message);
    }
    try {
      await sleep(options.pollIntervalMs, undefined, { signal: target.signal });
    } catch (error) {
      throw unreachable(target, statusUrl, error);
    }
  }
}
