// A fake of the Wayback Machine's Save Page Now 2 API: POST /save (form field `url`, JSON answer
// {url, job_id} when asked with Accept: application/json), GET /save/status/<job_id> ("pending" a
// given number of times, then "success" with a 14-digit timestamp, or "error" with status_ext), S3
// keys in "Authorization: LOW access:secret", and 429 with an HTML page when rate limited. As the
// real service does, an unknown job id stays "pending".
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { hold, listen, readBody, sameSecret, sendJson } from "../../dev/sandbox/http-kit.ts";

export interface FakeArchiveOptions {
  /** When given, requests must carry exactly these keys. */
  accessKey?: string;
  secretKey?: string;
  /** How many status checks answer "pending" before the capture succeeds. */
  pendingPolls?: number;
}

export interface CaptureRequest {
  url: string;
  jobId: string;
  authorization: string | undefined;
  accept: string | undefined;
}

export interface FakeArchive {
  url: string;
  captures: CaptureRequest[];
  /** Status checks received, per job id. */
  polls: Map<string, number>;
  /** Answer the next capture requests with 429 (and this Retry-After), or stop doing so. */
  setRateLimited(retryAfterSeconds: number | false): void;
  /** Make the next captures end in {"status":"error"} with this code and message, or stop. */
  setCaptureError(error: { statusExt: string; message: string } | null): void;
  /** Keep status checks waiting (Infinity: until the client gives up). */
  hangStatusChecks(ms: number | false): void;
  close(): Promise<void>;
}

function timestampNow(): string {
  return new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

export async function startFakeArchive(options: FakeArchiveOptions = {}): Promise<FakeArchive> {
  const captures: CaptureRequest[] = [];
  const polls = new Map<string, number>();
  const jobs = new Map<string, { url: string; error: { statusExt: string; message: string } | null }>();
  let rateLimited: number | false = false;
  let captureError: { statusExt: string; message: string } | null = null;
  let statusHang: number | false = false;
  const pendingPolls = options.pendingPolls ?? 1;

  function authorized(request: IncomingMessage): boolean {
    if (!options.accessKey) return true;
    const presented = request.headers.authorization ?? "";
    return sameSecret(presented, `LOW ${options.accessKey}:${options.secretKey ?? ""}`);
  }

  async function save(request: IncomingMessage, response: ServerResponse) {
    const form = new URLSearchParams((await readBody(request, 64 * 1024)).toString("utf8"));
    if (rateLimited !== false) {
      response.writeHead(429, { "content-type": "text/html", "retry-after": String(rateLimited) });
      response.end("<html><body><h1>Too Many Requests</h1><p>Please slow down.</p></body></html>");
      return;
    }
    if (!authorized(request)) {
      sendJson(response, 401, {
        status: "error",
        status_ext: "error:unauthorized",
        message: "You need to be logged in to use Save Page Now.",
      });
      return;
    }
    const url = form.get("url") ?? "";
    if (!/^https?:\/\/\S+$/.test(url)) {
      sendJson(response, 200, {
        status: "error",
        status_ext: "error:invalid-url-syntax",
        message: "Invalid URL syntax",
      });
      return;
    }
    const jobId = `spn2-${randomBytes(20).toString("hex")}`;
    captures.push({
      url,
      jobId,
      authorization: request.headers.authorization,
      accept: request.headers.accept,
    });
    jobs.set(jobId, { url, error: captureError });
    sendJson(response, 200, { url, job_id: jobId });
  }

  async function status(response: ServerResponse, jobId: string) {
    polls.set(jobId, (polls.get(jobId) ?? 0) + 1);
    if (statusHang !== false && !(await hold(response, statusHang))) return;
    const job = jobs.get(jobId);
    const checks = polls.get(jobId) ?? 0;
    if (!job || checks <= pendingPolls) {
      sendJson(response, 200, { status: "pending", job_id: jobId, resources: [] });
      return;
    }
    if (job.error) {
      sendJson(response, 200, {
        status: "error",
        job_id: jobId,
        status_ext: job.error.statusExt,
        message: job.error.message,
      });
      return;
    }
    sendJson(response, 200, {
      status: "success",
      job_id: jobId,
      original_url: job.url,
      timestamp: timestampNow(),
      duration_sec: 6.2,
      http_status: 200,
      resources: [job.url],
    });
  }

  const running = await listen(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    if (request.method === "POST" && path === "/save") return save(request, response);
    if (request.method === "GET" && path === "/save/status/user") {
      // SPN2's account check: the capture slots of the keys' account, 401 for keys it does not know.
      if (!options.accessKey || !authorized(request))
        return sendJson(response, 401, {
          status: "error",
          status_ext: "error:unauthorized",
          message: "You need to be logged in to use Save Page Now.",
        });
      return sendJson(response, 200, { available: 12, processing: 0 });
    }
    const statusMatch = /^\/save\/status\/([\w-]+)$/.exec(path);
    if (request.method === "GET" && statusMatch) return status(response, statusMatch[1] ?? "");
    response.writeHead(404, { "content-type": "text/html" });
    response.end("<h1>Not found</h1>");
  });

  return {
    url: running.url,
    captures,
    polls,
    setRateLimited(seconds) {
      rateLimited = seconds;
    },
    setCaptureError(error) {
      captureError = error;
    },
    hangStatusChecks(ms) {
      statusHang = ms;
    },
    close: running.close,
  };
}
