// Sends deploy webhooks to a test server as the providers do: the exact bytes that were signed, as
// JSON, with the provider's signature header.
import type { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import type { RunRecord } from "../../src/syndication/types.ts";
import type { TestServer } from "../helpers/server.ts";

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** POSTs `body` to `path` with the given headers (a signature, an event name…), as JSON. */
export async function sendWebhook(
  baseUrl: string,
  path: string,
  body: string,
  headers: Record<string, string>,
  init: RequestInit = {},
): Promise<WebhookAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "Netlify", ...headers },
    body,
    ...init,
  });
  const text = await response.text();
  return {
    status: response.status,
    body: JSON.parse(text) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** The runs the endpoint recorded, newest first, read through its core. */
export function recentRuns(server: TestServer): Promise<RunRecord[]> {
  const plugin = server.host.plugins.find((p) => p.id === "endpoint-syndicate") as
    | EndpointSyndicate
    | undefined;
  if (!plugin?.syndication) throw new Error("The endpoint plug-in has no syndication core");
  return plugin.syndication.reads.recentRuns();
}
