// Another site's Micropub endpoint (https://micropub.spec.indieweb.org/#create) for the crash test:
// a target that, unlike Mastodon, knows no idempotency key. It creates a post for every
// form-encoded create with the right Bearer token (201 with a Location), records its content, and
// can be told to create the next post but never answer — as when the sender dies mid-request.
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, hold, listen, readBody, sameSecret, sendJson } from "../../dev/sandbox/http-kit.ts";

export interface HangingMicropubTarget {
  url: string;
  token: string;
  /** The `content` of every post created, oldest first. */
  readonly created: string[];
  /** The `n`th create (counting from 1) is carried out, but its answer is held until the client goes away. */
  holdAnswerOfCreate(n: number): void;
  close(): Promise<void>;
}

export async function startHangingMicropubTarget(token: string): Promise<HangingMicropubTarget> {
  const created: string[] = [];
  let holdAt = 0;
  let base = "";

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== "POST") {
      request.resume();
      sendJson(response, 405, { error: "invalid_request", error_description: "Send a POST" });
      return;
    }
    const presented = bearerToken(request);
    if (!presented || !sameSecret(presented, token)) {
      request.resume();
      sendJson(response, 401, { error: "unauthorized", error_description: "The access token is not valid" });
      return;
    }
    if (!/^application\/x-www-form-urlencoded/i.test(request.headers["content-type"] ?? "")) {
      request.resume();
      sendJson(response, 415, { error: "invalid_request", error_description: "Send a form-encoded create" });
      return;
    }
    const form = new URLSearchParams((await readBody(request, 1024 * 1024)).toString("utf8"));
    if (form.get("h") !== "entry") {
      sendJson(response, 400, { error: "invalid_request", error_description: "Only h=entry is supported" });
      return;
    }
    created.push(form.get("content") ?? "");
    const location = `${base}/posts/${created.length}`;
    if (created.length === holdAt) {
      await hold(response, Number.POSITIVE_INFINITY);
      return;
    }
    response.writeHead(201, { location });
    response.end();
  }

  const running = await listen(handle);
  base = running.url;
  return {
    url: `${running.url}/micropub`,
    token,
    created,
    holdAnswerOfCreate(n) {
      holdAt = n;
    },
    close: running.close,
  };
}
