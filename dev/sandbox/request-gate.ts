// Requests that wait until a test lets them through, one by one. What a client shows while a request
// is outstanding then lasts until the test has looked at it, however loaded the machine: a wait of so
// many milliseconds does not promise that (a page's state that lasted a 400 ms wait fell between two
// of a browser test's looks, which come 500 ms apart).
import type { ServerResponse } from "node:http";

export interface RequestGate {
  /** Resolves once the request may go on: true, or false when its client gave up meanwhile. */
  pass(response: ServerResponse): Promise<boolean>;
  /** Lets `count` requests through: those waiting, oldest first, then the next ones to come. */
  release(count: number): void;
  /** Lets every waiting request through and forgets releases not yet used: the gate starts afresh. */
  reset(): void;
}

export function requestGate(): RequestGate {
  const waiting: Array<() => void> = [];
  /** Releases made before their request came. */
  let ahead = 0;
  return {
    pass(response) {
      if (ahead > 0) {
        ahead -= 1;
        return Promise.resolve(!response.destroyed);
      }
      return new Promise((resolve) => {
        const gone = () => {
          const at = waiting.indexOf(go);
          if (at >= 0) waiting.splice(at, 1);
          resolve(false);
        };
        const go = () => {
          response.off("close", gone);
          resolve(!response.destroyed);
        };
        waiting.push(go);
        response.once("close", gone);
      });
    },
    release(count) {
      for (let released = 0; released < count; released += 1) {
        const next = waiting.shift();
        if (next) next();
        else ahead += 1;
      }
    },
    reset() {
      ahead = 0;
      for (const go of waiting.splice(0)) go();
    },
  };
}
