// The few requests the figures make to a running server, as any client would.
import { performance } from "node:perf_hooks";

export interface Timed {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: string;
}

/** POST {server}/syndicate with a Bearer token; the time runs until the whole body has arrived. */
export async function postSyndicate(
  server: string,
  token: string,
  accept = "application/json",
): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(`${server}/syndicate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept },
  });
  const body = await response.text();
  return {
    status: response.status,
    ms: performance.now() - started,
    retryAfter: response.headers.get("retry-after"),
    body,
  };
}

/** Creates a post through Micropub naming `targets`, and returns its URL. */
export async function createPost(
  server: string,
  token: string,
  content: string,
  targets: readonly string[],
): Promise<string> {
  const form = new URLSearchParams({ h: "entry", content });
  for (const uid of targets) form.append("mp-syndicate-to[]", uid);
  const response = await fetch(`${server}/micropub`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: form,
  });
  const location = response.headers.get("location");
  if (response.status !== 201 && response.status !== 202)
    throw new Error(`Micropub create answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
  if (!location) throw new Error("Micropub create answered without a Location");
  return location;
}

/**
 * Starts a batch with an NDJSON response and resolves once the server has answered 200 (the run
 * has started); the rest of the stream is read in the background and ignored.
 */
export async function startStreamingBatch(
  server: string,
  token: string,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${server}/syndicate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "application/x-ndjson" },
  });
  const ms = performance.now() - started;
  if (response.status === 200 && response.body) {
    // Drained so that the connection is not left with unread data; errors when the server dies are expected.
    void response.body.pipeTo(new WritableStream()).catch(() => {});
  } else {
    await response.arrayBuffer().catch(() => {});
  }
  return { status: response.status, ms };
}
