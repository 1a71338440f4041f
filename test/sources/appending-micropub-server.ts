// A Micropub server that does not deduplicate, as WordPress's Micropub plug-in and Indiekit do not:
// an update's `add` appends every value it is given, one it holds already included, so a link
// written back twice shows twice. It answers as such servers do: q=source&url= with the post's
// JSON (200, application/json), an unknown URL with 400 invalid_request, a missing or wrong token
// with 401 and WWW-Authenticate, an update with 200, a Location and a JSON success. It records
// every request, and can hold the reads of a post (q=source&url=) until the test lets them go, so
// that a test decides which instance reads first.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { listen, readBody, sendJson } from "../../dev/sandbox/http-kit.ts";

export interface AppendingRequest {
  method: "GET" | "POST";
  /** "source" for a read, "update" for an update. */
  what: string;
  url: string;
  /** An update's JSON body. */
  body?: { action?: string; url?: string; add?: Record<string, unknown[]> };
}

export interface AppendingMicropubServer {
  endpoint: string;
  token: string;
  /** Every request, in the order they came. */
  requests: AppendingRequest[];
  /** The server's posts' properties, by URL (values as lists, as Micropub's JSON has them). */
  posts: Map<string, Record<string, unknown[]>>;
  /** While true, reads of a post wait until `releaseReads` (or the server closes). */
  holdReads: boolean;
  /** Reads waiting now. */
  heldReads(): number;
  releaseReads(): void;
  /** The updates that added `value` to `property` of `url`. */
  updatesAdding(url: string, property: string, value: string): AppendingRequest[];
  close(): Promise<void>;
}

export async function startAppendingMicropubServer(): Promise<AppendingMicropubServer> {
  const token = randomBytes(12).toString("hex");
  const waiting: Array<() => void> = [];
  const state: AppendingMicropubServer = {
    endpoint: "",
    token,
    requests: [],
    posts: new Map(),
    holdReads: false,
    heldReads: () => waiting.length,
    releaseReads() {
      state.holdReads = false;
      for (const go of waiting.splice(0)) go();
    },
    updatesAdding: (url, property, value) =>
      state.requests.filter(
        (request) =>
          request.what === "update" && request.url === url && request.body?.add?.[property]?.includes(value),
      ),
    close: async () => {},
  };
  const authorised = (header: string | undefined) => {
    const given = Buffer.from(header?.replace(/^Bearer\s+/i, "") ?? "");
    const expected = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const server = await listen(async (request, response) => {
    const query = new URL(request.url ?? "/", "http://server").searchParams;
    const body = await readBody(request, 1_000_000);
    if (!authorised(request.headers.authorization)) {
      sendJson(
        response,
        401,
        { error: "unauthorized", error_description: "No valid access token" },
        {
          "www-authenticate": 'Bearer error="invalid_token"',
        },
      );
      return;
    }
    if (request.method === "GET" && query.get("q") === "source" && query.has("url")) {
      const url = query.get("url") ?? "";
      state.requests.push({ method: "GET", what: "source", url });
      if (state.holdReads) await new Promise<void>((resolve) => waiting.push(resolve));
      const properties = state.posts.get(url);
      if (!properties) {
        sendJson(response, 400, { error: "invalid_request", error_description: `No post at ${url}` });
        return;
      }
      sendJson(response, 200, { type: ["h-entry"], properties: { ...properties, url: [url] } });
      return;
    }
    if (request.method === "POST") {
      const json = JSON.parse(body.toString("utf8")) as NonNullable<AppendingRequest["body"]>;
      const url = String(json.url);
      state.requests.push({ method: "POST", what: String(json.action), url, body: json });
      const properties = state.posts.get(url);
      if (json.action !== "update" || !properties) {
        sendJson(response, 400, { error: "invalid_request", error_description: `No post at ${url}` });
        return;
      }
      // Every value appended, whether the post holds it already or not.
      for (const [name, values] of Object.entries(json.add ?? {}))
        properties[name] = [...(properties[name] ?? []), ...values];
      sendJson(
        response,
        200,
        { success: "update", success_description: `Post updated at ${url}` },
        { location: url },
      );
      return;
    }
    sendJson(response, 400, { error: "invalid_request", error_description: "Unsupported request" });
  });
  state.endpoint = `${server.url}/micropub`;
  state.close = async () => {
    state.releaseReads();
    await server.close();
  };
  return state;
}
