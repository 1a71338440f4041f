// Streaming sinks: a JSON line per result (scripts, cron), or server-sent events (the admin page and
// anyone listening). Writes to a client that has gone are dropped; the run goes on regardless.
import type { Response } from "express";
import type { ResultSink } from "./result-sink.ts";

const HEARTBEAT_MS = 15_000;

function safeWrite(res: Response, chunk: string): void {
  if (!res.writableEnded && !res.destroyed) res.write(chunk);
}

export function ndjsonSink(res: Response): ResultSink {
  res.status(200);
  res.setHeader("Content-Type", "application/x-ndjson; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.flushHeaders();
  return {
    result: (result) => safeWrite(res, `${JSON.stringify({ type: "result", ...result })}\n`),
    end: (summary) => {
      safeWrite(res, `${JSON.stringify({ type: "summary", summary })}\n`);
      if (!res.writableEnded) res.end();
    },
  };
}

/** `send(null, data)` sends an unnamed message (what htmx's hx-sse extension swaps into the page). */
export function startEventStream(res: Response): {
  send(event: string | null, data: string): void;
  close(): void;
} {
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  // Reverse proxies such as nginx would otherwise hold events back.
  res.setHeader("X-Accel-Buffering", "no");
  res.flushHeaders();
  const heartbeat = setInterval(() => safeWrite(res, ": keep-alive\n\n"), HEARTBEAT_MS);
  heartbeat.unref();
  res.on("close", () => clearInterval(heartbeat));
  return {
    send: (event, data) => {
      // An EventSource ends a line at CR, LF or CRLF: splitting on LF alone would let a bare CR in
      // the data (a target's error shown in a row) start a field of its own, or a whole new event.
      const lines = data
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}`)
        .join("\n");
      safeWrite(res, `${event === null ? "" : `event: ${event}\n`}${lines}\n\n`);
    },
    close: () => {
      clearInterval(heartbeat);
      if (!res.writableEnded) res.end();
    },
  };
}

export function sseJsonSink(res: Response): ResultSink {
  const stream = startEventStream(res);
  return {
    result: (result) => stream.send("result", JSON.stringify(result)),
    end: (summary) => {
      stream.send("summary", JSON.stringify(summary));
      stream.close();
    },
  };
}
