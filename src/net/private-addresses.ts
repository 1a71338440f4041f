// Which IP addresses a URL taken from a post must never reach: the server's own machine and the
// networks behind it. A post (and so any Micropub client with a token) names these URLs, so fetching
// them blindly would let a client read internal services through our uploads (SSRF).
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT, shared address space
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::", 96], // IPv4-compatible (deprecated), never a public destination
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
  ["100::", 64], // discard-only
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

function ipv4FromBits(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/** The eight 16-bit groups of an IPv6 address (with any dotted IPv4 tail expanded). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part ? part.split(":").map((group) => Number.parseInt(group, 16)) : []);
  const start = parse(head);
  const end = tail === undefined ? [] : parse(tail);
  const zeros = new Array(Math.max(0, 8 - start.length - end.length)).fill(0);
  return [...start, ...zeros, ...end];
}

/**
 * IPv4 addresses carried inside an IPv6 one, which a gateway would turn back into IPv4: NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16). IPv4-mapped addresses are checked by the BlockList itself.
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return ipv4FromBits(groups[6] ?? 0, groups[7] ?? 0);
  if (groups[0] === 0x2002) return ipv4FromBits(groups[1] ?? 0, groups[2] ?? 0);
  return undefined;
}

/** True for loopback, private, link-local, unique-local, unspecified and other non-public addresses. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4");
  if (family === 6) {
    if (blocked.check(bare, "ipv6")) return true;
    const inner = embeddedIpv4(bare);
    return inner !== undefined && blocked.check(inner, "ipv4");
  }
  // Not an address at all: treat as unsafe rather than guess.
  return true;
}
