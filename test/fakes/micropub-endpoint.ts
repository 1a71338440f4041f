// A fake Micropub endpoint (https://micropub.spec.indieweb.org/): takes form-encoded and JSON
// create requests with a Bearer token, answers 201 Created (or 202 Accepted) with a Location, and
// errors as {"error": "...", "error_description": "..."}. It records every request it receives and
// keeps each post's properties, so that an update (JSON action=update with replace, add or delete;
// 204 No Content) and a delete (action=delete, form or JSON; 204) act on them as the spec says; an
// update or delete of a URL it does not hold is 400 invalid_request, as the spec's errors say.
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, listen, readBody, sameSecret, sendJson } from "../../dev/sandbox/http-kit.ts";

export interface MicropubRequestRecord {
  contentType: string;
  /** For a form-encoded request: every field with all its values. */
  form?: Record<string, string[]>;
  /** For a JSON request: the parsed body. */
  json?: { type?: string[]; properties?: Record<string, unknown[]> };
}

export interface FakeMicropub {
  /** The endpoint's URL. */
  url: string;
  requests: MicropubRequestRecord[];
  /** Locations of the posts made. */
  posts: string[];
  /** The properties each post holds now (JSON syntax), by location; a deleted post is absent. */
  stored: Map<string, Record<string, unknown[]>>;
  /** Requests that reached /moved, the target of the redirect (method and path). */
  moved: string[];
  setFailure(failure: { status: number; error: string; description: string } | null): void;
  close(): Promise<void>;
}

export async function startFakeMicropub(options: {
  token: string;
  /** 201 (the default) or 202. */
  status?: 201 | 202;
  /** "absolute" (default) or "relative" Location headers. */
  location?: "absolute" | "relative";
  /**
   * Answer every POST /micropub with 302 to /moved, which would "create" a post for any method: a
   * client that followed the redirect (turning the POST into a GET) would think the post was made.
   */
  redirect?: boolean;
}): Promise<FakeMicropub> {
  const requests: MicropubRequestRecord[] = [];
  const posts: string[] = [];
  const moved: string[] = [];
  const stored = new Map<string, Record<string, unknown[]>>();
  let failure: { status: number; error: string; description: string } | null = null;
  let base = "";

  async function create(request: IncomingMessage, response: ServerResponse) {
    const token = bearerToken(request);
    if (!token) {
      request.resume();
      sendJson(response, 401, { error: "unauthorized", error_description: "No access token was provided" });
      return;
    }
    if (!sameSecret(token, options.token)) {
      request.resume();
      sendJson(response, 403, {
        error: "forbidden",
        error_description: "The access token is not valid for this site",
      });
      return;
    }
    const contentType = request.headers["content-type"] ?? "";
    const text = (await readBody(request, 1024 * 1024)).toString("utf8");
    const record: MicropubRequestRecord = { contentType };
    if (/^application\/json/i.test(contentType)) {
      record.json = JSON.parse(text) as MicropubRequestRecord["json"];
    } else if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
      const form: Record<string, string[]> = {};
      for (const [key, value] of new URLSearchParams(text)) form[key] = [...(form[key] ?? []), value];
      record.form = form;
    } else {
      sendJson(response, 415, {
        error: "invalid_request",
        error_description: `Unsupported content type ${contentType}`,
      });
      return;
    }
    requests.push(record);
    if (failure) {
      sendJson(response, failure.status, { error: failure.error, error_description: failure.description });
      return;
    }
    const action = record.form ? record.form.action?.[0] : (record.json as { action?: unknown })?.action;
    if (action === "update" || action === "delete") return change(action, record, response);
    const isEntry = record.form ? record.form.h?.[0] === "entry" : record.json?.type?.[0] === "h-entry";
    if (!isEntry) {
      sendJson(response, 400, {
        error: "invalid_request",
        error_description: "Only h-entry posts can be created",
      });
      return;
    }
    const path = `/notes/${posts.length + 1}`;
    posts.push(`${base}${path}`);
    stored.set(`${base}${path}`, record.json?.properties ?? formProperties(record.form ?? {}));
    response.writeHead(options.status ?? 201, {
      location: options.location === "relative" ? path : `${base}${path}`,
    });
    response.end();
  }

  /** action=update (JSON only, as the spec has it) and action=delete (form or JSON). */
  function change(action: "update" | "delete", record: MicropubRequestRecord, response: ServerResponse) {
    const body = (record.json ?? {}) as {
      url?: unknown;
      replace?: Record<string, unknown[]>;
      add?: Record<string, unknown[]>;
      delete?: string[] | Record<string, unknown[]>;
    };
    const url = record.form ? record.form.url?.[0] : body.url;
    const properties = typeof url === "string" ? stored.get(url) : undefined;
    if (!properties) {
      return sendJson(response, 400, {
        error: "invalid_request",
        error_description: `The post ${String(url)} does not exist`,
      });
    }
    if (action === "delete") {
      stored.delete(url as string);
    } else {
      if (!record.json) {
        return sendJson(response, 400, {
          error: "invalid_request",
          error_description: "Updates must be sent as JSON",
        });
      }
      if (!body.replace && !body.add && !body.delete) {
        return sendJson(response, 400, {
          error: "invalid_request",
          error_description: "An update needs replace, add or delete",
        });
      }
      for (const [name, values] of Object.entries(body.replace ?? {})) properties[name] = values;
      for (const [name, values] of Object.entries(body.add ?? {}))
        properties[name] = [...(properties[name] ?? []), ...values];
      if (Array.isArray(body.delete)) for (const name of body.delete) delete properties[name];
    }
    response.writeHead(204);
    response.end();
  }

  /** GET ?q=config, as a Micropub server answers it: the same token rules as a create. */
  function query(request: IncomingMessage, response: ServerResponse) {
    const token = bearerToken(request);
    if (!token)
      return sendJson(response, 401, {
        error: "unauthorized",
        error_description: "No access token was provided",
      });
    if (!sameSecret(token, options.token))
      return sendJson(response, 403, {
        error: "forbidden",
        error_description: "The access token is not valid for this site",
      });
    const q = new URL(request.url ?? "/", "http://fake").searchParams.get("q");
    if (q !== "config")
      return sendJson(response, 400, { error: "invalid_request", error_description: `Unknown query ${q}` });
    return sendJson(response, 200, { "syndicate-to": [] });
  }

  const running = await listen(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    if (options.redirect && path === "/micropub") {
      request.resume();
      response.writeHead(302, { location: `${base}/moved` });
      response.end();
      return;
    }
    if (path === "/moved") {
      request.resume();
      moved.push(`${request.method} ${path}`);
      response.writeHead(201, { location: `${base}/notes/moved` });
      response.end();
      return;
    }
    if (request.method === "POST" && path === "/micropub") return create(request, response);
    if (request.method === "GET" && path === "/micropub") return query(request, response);
    response.writeHead(404);
    response.end();
  });
  base = running.url;
  return {
    url: `${running.url}/micropub`,
    requests,
    posts,
    stored,
    moved,
    setFailure(next) {
      failure = next;
    },
    close: running.close,
  };
}

/** A form-encoded create's properties in JSON syntax (category[] → category). */
function formProperties(form: Record<string, string[]>): Record<string, unknown[]> {
  const properties: Record<string, unknown[]> = {};
  for (const [key, values] of Object.entries(form)) {
    if (key === "h" || key.startsWith("mp-") || key === "access_token") continue;
    properties[key.replace(/\[\]$/, "")] = values;
  }
  return properties;
}
