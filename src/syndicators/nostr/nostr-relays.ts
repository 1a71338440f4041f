// Sending one signed event to each relay, as NIP-01 says: the client sends ["EVENT", <event>] and the
// relay answers ["OK", <event id>, <true|false>, <message>], where the message starts with a
// machine-readable prefix ("duplicate:", "blocked:", "rate-limited:", "invalid:", "pow:",
// "restricted:", "error:"). `OK true` — a "duplicate:" included, which says the relay has the event
// already — means the relay keeps it. Relays are tried side by side, each on its own socket that is
// closed once it has answered. Every address goes through the private-address rule
// (src/net/safe-websocket.ts).
import type WebSocket from "ws";
import type { RawData } from "ws";
import { isRefusedSocket, openSafeWebSocket } from "../../net/safe-websocket.ts";

/** What a relay did with the event. */
export interface RelayAnswer {
  relay: string;
  /** `OK true`. */
  accepted: boolean;
  /** `OK false`: the relay read the event and refused it. Else it was not reached or did not answer. */
  refused: boolean;
  /** The relay's message, or what went wrong on the way. */
  message: string;
}

export interface RelayPolicy {
  allowPrivate: boolean;
  signal: AbortSignal;
  /** How long one relay may take to connect and answer. */
  timeoutMs: number;
}

/** Refusals that the same event meets again, whenever it is sent (NIP-01's prefixes). */
const lastingPrefixes = ["blocked:", "invalid:", "pow:", "restricted:"];

export function isLastingRefusal(answer: RelayAnswer): boolean {
  return answer.refused && lastingPrefixes.some((prefix) => answer.message.startsWith(prefix));
}

function sendTo(relay: string, event: { id: string }, policy: RelayPolicy): Promise<RelayAnswer> {
  return new Promise((resolve) => {
    let socket: WebSocket | undefined;
    let settled = false;
    const finish = (answer: Omit<RelayAnswer, "relay">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      policy.signal.removeEventListener("abort", onAbort);
      socket?.removeAllListeners();
      socket?.on("error", () => {});
      socket?.terminate();
      resolve({ relay, ...answer });
    };
    const onAbort = () => finish({ accepted: false, refused: false, message: "cancelled" });
    const timer = setTimeout(
      () => finish({ accepted: false, refused: false, message: "no answer in time" }),
      policy.timeoutMs,
    );
    policy.signal.addEventListener("abort", onAbort, { once: true });
    if (policy.signal.aborted) return onAbort();
    try {
      socket = openSafeWebSocket(relay, {
        allowPrivate: policy.allowPrivate,
        handshakeTimeoutMs: policy.timeoutMs,
      });
    } catch (error) {
      const message = isRefusedSocket(error) ? "refused: private address" : (error as Error).message;
      return finish({ accepted: false, refused: false, message });
    }
    socket.on("error", (error) =>
      finish({
        accepted: false,
        refused: false,
        message: isRefusedSocket(error) ? "refused: private address" : `could not connect (${error.message})`,
      }),
    );
    socket.on("close", () =>
      finish({ accepted: false, refused: false, message: "closed without an answer" }),
    );
    socket.on("open", () => socket?.send(JSON.stringify(["EVENT", event])));
    socket.on("message", (data: RawData) => {
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (!Array.isArray(message) || message[0] !== "OK" || message[1] !== event.id) return;
      const said = typeof message[3] === "string" ? message[3] : "";
      finish({ accepted: message[2] === true, refused: message[2] !== true, message: said });
    });
  });
}

/** Sends the event to every relay at once; one answer per relay, in the order given. */
export function publishToRelays(
  event: { id: string },
  relays: readonly string[],
  policy: RelayPolicy,
): Promise<RelayAnswer[]> {
  return Promise.all(relays.map((relay) => sendTo(relay, event, policy)));
}

/** "wss://a: blocked: spam; wss://b: no answer in time", for an error message. */
export function describeAnswers(answers: readonly RelayAnswer[]): string {
  return answers.map((answer) => `${answer.relay}: ${answer.message || "refused"}`).join("; ");
}

/** Whether a relay can be reached now (its socket opens), under the same rules: nothing is sent. */
export function reachRelay(
  relay: string,
  policy: RelayPolicy,
): Promise<{ reached: boolean; refused: boolean }> {
  return new Promise((resolve) => {
    let socket: WebSocket | undefined;
    const finish = (reached: boolean, refused = false) => {
      clearTimeout(timer);
      socket?.removeAllListeners();
      socket?.on("error", () => {});
      socket?.terminate();
      resolve({ reached, refused });
    };
    const timer = setTimeout(() => finish(false), policy.timeoutMs);
    try {
      socket = openSafeWebSocket(relay, {
        allowPrivate: policy.allowPrivate,
        handshakeTimeoutMs: policy.timeoutMs,
      });
    } catch (error) {
      return finish(false, isRefusedSocket(error));
    }
    socket.on("open", () => finish(true));
    socket.on("error", (error) => finish(false, isRefusedSocket(error)));
  });
}
