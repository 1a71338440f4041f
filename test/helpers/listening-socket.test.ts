import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { listensOn } from "./listening-socket.ts";

describe("listensOn", () => {
  it("names the process that holds a port's listening socket, and no other", async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as { port: number }).port;
    const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      assert.equal(listensOn(process.pid, port), true, "this process listens on its port");
      assert.equal(listensOn(other.pid as number, port), false, "another process does not");
      assert.equal(
        listensOn(process.pid, port === 65535 ? port - 1 : port + 1),
        false,
        "nor on the next port",
      );
    } finally {
      other.kill();
      server.close();
    }
    await once(server, "close");
    assert.equal(listensOn(process.pid, port), false, "once closed, nobody listens");
  });
});
