import assert from "node:assert/strict";
import dns from "node:dns/promises";
import { syncBuiltinESMExports } from "node:module";
import { afterEach, describe, it, mock } from "node:test";
import { privateAddressOf } from "./private-host.ts";

/** Answers node:dns/promises' lookup with `addresses` for `host` (no resolver here knows public names). */
function resolving(host: string, addresses: string[]): void {
  mock.method(dns, "lookup", async (name: string) => {
    if (name !== host) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  });
  syncBuiltinESMExports();
}

describe("the private address a webhook URL names, checked when it is saved", () => {
  afterEach(() => {
    mock.restoreAll();
    syncBuiltinESMExports();
  });

  it("is the literal address itself, an IPv6 one written in brackets too", async () => {
    assert.equal(await privateAddressOf(new URL("http://127.0.0.1:8080/hook")), "127.0.0.1");
    assert.equal(await privateAddressOf(new URL("http://10.1.2.3/hook")), "10.1.2.3");
    assert.equal(await privateAddressOf(new URL("http://[::1]:9000/hook")), "::1");
    assert.equal(await privateAddressOf(new URL("http://[fd00::5]/hook")), "fd00::5");
  });

  it("is none for a public literal address, IPv4 or IPv6", async () => {
    assert.equal(await privateAddressOf(new URL("https://93.184.216.34/hook")), null);
    assert.equal(await privateAddressOf(new URL("https://[2606:4700::1111]/hook")), null);
  });

  it("is the private one among the addresses a name resolves to", async () => {
    resolving("hooks.example", ["93.184.216.34", "192.168.1.20", "10.0.0.1"]);
    assert.equal(await privateAddressOf(new URL("https://hooks.example/ping")), "192.168.1.20");
    assert.equal(
      await privateAddressOf(new URL("http://localhost:3000/")),
      null,
      "the mock knows one name only",
    );
  });

  it("is none for a name whose addresses are all public, and for a name that does not resolve", async () => {
    resolving("hooks.example", ["93.184.216.34", "2606:4700::1111"]);
    assert.equal(await privateAddressOf(new URL("https://hooks.example/ping")), null);
    assert.equal(await privateAddressOf(new URL("https://nowhere.invalid/ping")), null);
  });

  it("resolves a real name through the system's resolver (localhost is the loopback)", async () => {
    const address = await privateAddressOf(new URL("http://localhost:3000/hook"));
    assert.ok(address === "127.0.0.1" || address === "::1", String(address));
  });
});
