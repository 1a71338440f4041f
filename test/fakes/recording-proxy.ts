// Stands between a client and a server and writes down what each request said, in a form that
// does not depend on the encoding (JSON, form or multipart): the fields and their values, the
// files' types and sizes, and the headers that matter. Two clients sending the same request in
// different encodings are recorded alike.
import type { IncomingMessage, ServerResponse } from "node:http";
import { listen, readBody } from "../../dev/sandbox/http-kit.ts";
import { boundaryOf, parseMultipart } from "../../dev/sandbox/multipart.ts";

export interface RecordedRequest {
  method: string;
  path: string;
  /** "json", "form", "multipart" or "none". */
  encoding: string;
  /** Every field with its values; `name[]` is recorded as `name`. */
  fields: Record<string, string[]>;
  files: Record<string, { type: string; size: number }>;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function add(fields: Record<string, string[]>, name: string, value: string) {
  const key = name.replace(/\[\]$/, "");
  fields[key] = [...(fields[key] ?? []), value];
}

function fromJson(fields: Record<string, string[]>, value: unknown, prefix = ""): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) fromJson(fields, item, prefix);
    return;
  }
  if (typeof value === "object") {
    for (const [name, inner] of Object.entries(value))
      fromJson(fields, inner, prefix ? `${prefix}[${name}]` : name);
    return;
  }
  add(fields, prefix, String(value));
}

function record(request: IncomingMessage, body: Buffer): RecordedRequest {
  const type = request.headers["content-type"] ?? "";
  const fields: Record<string, string[]> = {};
  const files: RecordedRequest["files"] = {};
  let encoding = "none";
  const boundary = boundaryOf(type);
  if (/^application\/json/i.test(type) && body.length > 0) {
    encoding = "json";
    fromJson(fields, JSON.parse(body.toString("utf8")));
  } else if (/^application\/x-www-form-urlencoded/i.test(type)) {
    encoding = "form";
    for (const [name, value] of new URLSearchParams(body.toString("utf8"))) add(fields, name, value);
  } else if (boundary) {
    encoding = "multipart";
    const form = parseMultipart(body, boundary);
    for (const [name, value] of form.fields) add(fields, name, value);
    for (const file of form.files) files[file.field] = { type: file.contentType, size: file.data.length };
  }
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return {
    method: request.method ?? "GET",
    path: new URL(request.url ?? "/", "http://proxy").pathname,
    encoding,
    fields,
    files,
    authorization: header("authorization"),
    idempotencyKey: header("idempotency-key"),
  };
}

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const running = await listen(async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request, 50 * 1024 * 1024);
    requests.push(record(request, body));
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || name === "host" || name === "content-length" || name === "connection")
        continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const method = request.method ?? "GET";
    const answer = await fetch(`${upstream}${request.url ?? "/"}`, {
      method,
      headers,
      ...(method === "GET" || method === "HEAD" ? {} : { body: new Uint8Array(body) }),
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "application/octet-stream",
      "content-length": bytes.length,
    });
    response.end(bytes);
  });
  return { url: running.url, requests, close: running.close };
}
