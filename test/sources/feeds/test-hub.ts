// A WebSub hub in a test, as the spec describes one (W3C WebSub 5.1, 5.3, 7): it accepts a
// subscription request with 202, verifies the intent by GET at the callback, and publishes
// notifications, signed when it was given a secret (7.1). It can also send a request on to another
// URL with a redirect first (5.1.2: "307 (temporary redirect) or 308 (permanent redirect)").
// Shared by the subscriber's tests and the feed source's.
import { createHmac } from "node:crypto";
import { listen, type RunningServer, readBody } from "../../../dev/sandbox/http-kit.ts";

export interface HubRequest {
  form: URLSearchParams;
  /** The path the request was sent to (a redirect's Location leads to another). */
  path: string;
  /** The test clock's time when the hub received it, when the hub was given a clock. */
  at?: number;
}
export interface Verification {
  callback: string;
  mode: string;
  status: number;
  body: string;
}

/** A hub as the spec describes one: accepts a request with 202, then verifies the intent by GET. */
export class TestHub {
  server!: RunningServer;
  requests: HubRequest[] = [];
  verifications: Verification[] = [];
  /** What the next request gets: verified after the answer, before it, denied, or refused. */
  behaviour: "verify" | "verify-first" | "deny" | "refuse" | "silent" = "verify";
  leaseSeconds = 3600;
  /** The next requests are answered with these redirects, in order, before one is handled. */
  redirects: { status: number; location: string }[] = [];
  /** The test's clock, to note when each request came. */
  now: (() => number) | undefined;
  private waiting: ((verification: Verification) => void)[] = [];

  async start(): Promise<void> {
    this.server = await listen(async (request, response) => {
      const form = new URLSearchParams((await readBody(request, 100_000)).toString());
      this.requests.push({ form, path: request.url ?? "/", ...(this.now ? { at: this.now() } : {}) });
      const redirect = this.redirects.shift();
      if (redirect) {
        response.writeHead(redirect.status, { location: redirect.location }).end();
        return;
      }
      if (this.behaviour === "refuse") {
        response.writeHead(400, { "content-type": "text/plain" }).end("topic not served here");
        return;
      }
      if (this.behaviour === "verify-first") await this.verify(form);
      response.writeHead(202).end();
      if (this.behaviour === "verify" || this.behaviour === "deny") await this.verify(form);
    });
  }

  get url(): string {
    return `${this.server.url}/hub`;
  }

  private async verify(form: URLSearchParams): Promise<void> {
    const callback = new URL(form.get("hub.callback") ?? "");
    const mode = this.behaviour === "deny" ? "denied" : (form.get("hub.mode") ?? "");
    callback.searchParams.set("hub.mode", mode);
    callback.searchParams.set("hub.topic", form.get("hub.topic") ?? "");
    if (mode === "denied") callback.searchParams.set("hub.reason", "no pushing for you");
    else callback.searchParams.set("hub.challenge", `challenge-${this.verifications.length}`);
    if (mode === "subscribe") callback.searchParams.set("hub.lease_seconds", String(this.leaseSeconds));
    const answer = await fetch(callback);
    const verification = {
      callback: form.get("hub.callback") ?? "",
      mode,
      status: answer.status,
      body: await answer.text(),
    };
    this.verifications.push(verification);
    for (const resolve of this.waiting.splice(0)) resolve(verification);
  }

  /** The verification number `index` (0-based), once it has been answered. */
  async verification(index: number): Promise<Verification> {
    for (;;) {
      const done = this.verifications[index];
      if (done) return done;
      await new Promise((resolve) => this.waiting.push(resolve));
    }
  }

  /**
   * Publishes to a subscriber as the hub does: the body, signed with the secret it was given (no
   * signature without one), unless the test gives the X-Hub-Signature to send ("" for none).
   */
  async publish(form: URLSearchParams, body: string, signature?: string): Promise<number> {
    const secret = form.get("hub.secret");
    const headers: Record<string, string> = { "content-type": "application/atom+xml" };
    const sign =
      signature ??
      (secret === null ? "" : `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
    if (sign) headers["x-hub-signature"] = sign;
    const answer = await fetch(form.get("hub.callback") ?? "", { method: "POST", headers, body });
    return answer.status;
  }
}
