// Stands between possekit and a remote possekit's Micropub endpoint, passing every request on, so
// that a test can make the remote look down (503), hang on an update (the answer never comes, as
// when the process dies mid-request), send every request elsewhere with a redirect (a hostile or
// compromised blog), and count what reached it.
import { request as httpRequest } from "node:http";
import { listen, readBody } from "../../dev/sandbox/http-kit.ts";

export type GateMode = "pass" | "down" | "down-for-updates" | "hang-updates" | "redirect";

export interface RemoteGate {
  /** The gate's URL in place of the remote's origin: `${url}/micropub` is the remote's endpoint. */
  url: string;
  mode: GateMode;
  /** Where "redirect" sends each request (302, the same path and query): another origin. */
  redirectTo: string;
  /**
   * Requests the remote has answered, as "GET q=source" or "POST update <url>". Recorded when the
   * remote's answer arrives, not when the request does: a test that waits for an update here may
   * then read the post back and find the update applied.
   */
  passed: string[];
  /** Updates held by hang-updates, never answered. */
  held: number;
  /** Requests answered 503 by the gate itself, as "POST update <url>" or "GET q=…". */
  refused: string[];
  close(): Promise<void>;
}

export async function startRemoteGate(upstream: string): Promise<RemoteGate> {
  const target = new URL(upstream);
  const gate: RemoteGate = {
    url: "",
    mode: "pass",
    redirectTo: "",
    passed: [],
    held: 0,
    refused: [],
    close: async () => {},
  };
  const server = await listen(async (request, response) => {
    const body = await readBody(request, 10_000_000);
    const isUpdate = request.method === "POST";
    const search = new URL(request.url ?? "/", "http://gate").searchParams;
    let described = `GET q=${search.get("q")}${search.has("url") ? " url" : ""}`;
    if (isUpdate) {
      const json = JSON.parse(body.toString("utf8")) as { action?: string; url?: string };
      described = `POST ${String(json.action)} ${String(json.url)}`;
    }
    if (gate.mode === "down" || (isUpdate && gate.mode === "down-for-updates")) {
      gate.refused.push(described);
      response.writeHead(503, { "content-type": "text/plain", "retry-after": "60" }).end("down");
      return;
    }
    if (gate.mode === "redirect") {
      response.writeHead(302, { location: new URL(request.url ?? "/", gate.redirectTo).href }).end();
      return;
    }
    if (isUpdate && gate.mode === "hang-updates") {
      gate.held += 1;
      return;
    }
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: target.host, "content-length": String(body.length) },
      },
      (answer) => {
        gate.passed.push(described);
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on("error", () => response.writeHead(502).end());
    forwarded.end(body);
  });
  gate.url = server.url;
  gate.close = server.close;
  return gate;
}
