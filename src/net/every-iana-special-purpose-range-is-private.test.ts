// Decision 0045: the private-address list had gaps (the documentation ranges, IPv4-translated and
// local-use NAT64 counted as public). The list is now the IANA IPv4 and IPv6 Special-Purpose Address
// Registries, row by row. This table is written apart from the code's, so that a row dropped there
// fails here: one test per range, with its first and last address, and public neighbours that stay
// public.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPrivateAddress } from "./private-addresses.ts";

// [registry row's name, CIDR, its first address, its last address]
const ranges: Array<[string, string, string, string]> = [
  // IANA IPv4 Special-Purpose Address Registry
  ['"This network"', "0.0.0.0/8", "0.0.0.0", "0.255.255.255"],
  ["Private-Use", "10.0.0.0/8", "10.0.0.0", "10.255.255.255"],
  ["Shared Address Space", "100.64.0.0/10", "100.64.0.0", "100.127.255.255"],
  ["Loopback", "127.0.0.0/8", "127.0.0.0", "127.255.255.255"],
  ["Link Local", "169.254.0.0/16", "169.254.0.0", "169.254.255.255"],
  ["Private-Use", "172.16.0.0/12", "172.16.0.0", "172.31.255.255"],
  ["IETF Protocol Assignments", "192.0.0.0/24", "192.0.0.0", "192.0.0.255"],
  ["Documentation (TEST-NET-1)", "192.0.2.0/24", "192.0.2.0", "192.0.2.255"],
  ["AS112-v4", "192.31.196.0/24", "192.31.196.0", "192.31.196.255"],
  ["AMT", "192.52.193.0/24", "192.52.193.0", "192.52.193.255"],
  ["Deprecated (6to4 Relay Anycast)", "192.88.99.0/24", "192.88.99.0", "192.88.99.255"],
  ["Private-Use", "192.168.0.0/16", "192.168.0.0", "192.168.255.255"],
  ["Direct Delegation AS112 Service", "192.175.48.0/24", "192.175.48.0", "192.175.48.255"],
  ["Benchmarking", "198.18.0.0/15", "198.18.0.0", "198.19.255.255"],
  ["Documentation (TEST-NET-2)", "198.51.100.0/24", "198.51.100.0", "198.51.100.255"],
  ["Documentation (TEST-NET-3)", "203.0.113.0/24", "203.0.113.0", "203.0.113.255"],
  ["Reserved", "240.0.0.0/4", "240.0.0.0", "255.255.255.254"],
  ["Limited Broadcast", "255.255.255.255/32", "255.255.255.255", "255.255.255.255"],
  // IANA IPv4 Multicast Address Space Registry
  ["Multicast", "224.0.0.0/4", "224.0.0.0", "239.255.255.255"],
  // IANA IPv6 Special-Purpose Address Registry
  ["Loopback Address", "::1/128", "::1", "::1"],
  ["Unspecified Address", "::/128", "::", "::"],
  ["IPv4-mapped Address (of a private IPv4)", "::ffff:0:0/96", "::ffff:0.0.0.0", "::ffff:10.255.255.255"],
  ["IPv4-IPv6 Translat. (of a private IPv4)", "64:ff9b::/96", "64:ff9b::a00:1", "64:ff9b::7f00:1"],
  ["IPv4-IPv6 Translat. (local use)", "64:ff9b:1::/48", "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
  ["Discard-Only Address Block", "100::/64", "100::", "100::ffff:ffff:ffff:ffff"],
  ["Dummy IPv6 Prefix", "100:0:0:1::/64", "100:0:0:1::", "100::1:ffff:ffff:ffff:ffff"],
  ["IETF Protocol Assignments", "2001::/23", "2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["TEREDO", "2001::/32", "2001::", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["Benchmarking", "2001:2::/48", "2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff"],
  ["ORCHIDv2", "2001:20::/28", "2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["Documentation", "2001:db8::/32", "2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["6to4", "2002::/16", "2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  [
    "Direct Delegation AS112 Service",
    "2620:4f:8000::/48",
    "2620:4f:8000::",
    "2620:4f:8000:ffff:ffff:ffff:ffff:ffff",
  ],
  ["Documentation", "3fff::/20", "3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["Segment Routing (SRv6) SIDs", "5f00::/16", "5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["Unique-Local", "fc00::/7", "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["Link-Local Unicast", "fe80::/10", "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  // Outside the registry, never a public destination
  ["IPv4-compatible (deprecated, RFC 4291 §2.5.5.1)", "::/96", "::2", "::ffff:ffff"],
  ["IPv4-translated (SIIT, RFC 2765)", "::ffff:0:0:0/96", "::ffff:0:0.0.0.0", "::ffff:0:ffff:ffff"],
  ["Site-local (deprecated, RFC 3879)", "fec0::/10", "fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  [
    "Multicast (IPv6 Multicast Address Space Registry)",
    "ff00::/8",
    "ff00::",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
  ],
];

describe("every IANA special-purpose range is private", () => {
  for (const [name, cidr, first, last] of ranges) {
    it(`${cidr}: ${name}`, () => {
      assert.equal(isPrivateAddress(first), true, first);
      assert.equal(isPrivateAddress(last), true, last);
    });
  }

  it("leaves public addresses public, IPv4 carried in IPv6 by its IPv4 address", () => {
    for (const address of [
      "1.1.1.1",
      "8.8.8.8",
      "192.0.3.1",
      "198.51.99.255",
      "203.0.114.0",
      "100.128.0.0",
      "2606:4700:4700::1111",
      "2001:200::1",
      "2001:dba::1",
      "::ffff:8.8.8.8",
      "64:ff9b::808:808",
      "[2a00:1450:4007:80e::200e]",
    ])
      assert.equal(isPrivateAddress(address), false, address);
  });

  it("treats what is not an address as private, and reads zones and brackets", () => {
    for (const text of ["", "example.org", "1.2.3", "0x7f.1", "::g", "1.2.3.4.5"])
      assert.equal(isPrivateAddress(text), true, text);
    assert.equal(isPrivateAddress("fe80::1%eth0"), true);
    assert.equal(isPrivateAddress("[::1]"), true);
    // A zone does not make a public address private, nor does a bracket outside the ends make text an address.
    assert.equal(isPrivateAddress("2606:4700::1111%eth0"), false);
    assert.equal(isPrivateAddress("[2606:4700::1111%eth0]"), false);
    for (const text of ["93.184.216.34[", "]93.184.216.34", "[93.184.216.34]x"])
      assert.equal(isPrivateAddress(text), true, text);
  });
});
