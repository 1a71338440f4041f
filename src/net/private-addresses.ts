// Which IP addresses a URL taken from a post must never reach: the server's own machine, the networks
// behind it, and every address IANA sets apart for a special purpose. A post (and so any Micropub
// client with a token) names these URLs, so fetching them blindly would let a client read internal
// services through our uploads (SSRF).
//
// The list is the IANA IPv4 and IPv6 Special-Purpose Address Registries, row by row
// (https://www.iana.org/assignments/iana-ipv4-special-registry and iana-ipv6-special-registry, as of
// 2025), each row named below as the registry names it. Every row is refused, those marked "globally
// reachable" too (AS112, AMT, anycast relays): none is where a post's photo lives. One row is read
// instead of refused: 64:ff9b::/96 (NAT64), which an IPv6-only network with DNS64 uses for every IPv4
// site, is judged by the IPv4 address it carries, as IPv4-mapped addresses are.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

const ranges = (rows: string[]): Range[] => rows.map((cidr) => ipaddr.parseCIDR(cidr));

const ipv4Ranges = ranges([
  "0.0.0.0/8", // "This network" (RFC 791); holds 0.0.0.0/32 "This host on this network"
  "10.0.0.0/8", // Private-Use (RFC 1918)
  "100.64.0.0/10", // Shared Address Space (RFC 6598): carrier-grade NAT
  "127.0.0.0/8", // Loopback (RFC 1122)
  "169.254.0.0/16", // Link Local (RFC 3927): cloud metadata services live here
  "172.16.0.0/12", // Private-Use (RFC 1918)
  "192.0.0.0/24", // IETF Protocol Assignments (RFC 6890), with its sub-rows (DS-Lite, PCP, TURN, NAT64 discovery)
  "192.0.2.0/24", // Documentation (TEST-NET-1) (RFC 5737)
  "192.31.196.0/24", // AS112-v4 (RFC 7535)
  "192.52.193.0/24", // AMT (RFC 7450)
  "192.88.99.0/24", // Deprecated (6to4 Relay Anycast) (RFC 7526)
  "192.168.0.0/16", // Private-Use (RFC 1918)
  "192.175.48.0/24", // Direct Delegation AS112 Service (RFC 7534)
  "198.18.0.0/15", // Benchmarking (RFC 2544)
  "198.51.100.0/24", // Documentation (TEST-NET-2) (RFC 5737)
  "203.0.113.0/24", // Documentation (TEST-NET-3) (RFC 5737)
  "240.0.0.0/4", // Reserved (RFC 1112)
  "255.255.255.255/32", // Limited Broadcast (RFC 8190)
  "224.0.0.0/4", // Multicast: the IANA IPv4 Multicast Address Space Registry, not the special-purpose one
]);

const ipv6Ranges = ranges([
  "::1/128", // Loopback Address (RFC 4291)
  "::/128", // Unspecified Address (RFC 4291)
  // ::ffff:0:0/96, IPv4-mapped Address (RFC 4291): judged by its IPv4 address (below)
  // 64:ff9b::/96, IPv4-IPv6 Translat. (RFC 6052): judged by its IPv4 address (below)
  "64:ff9b:1::/48", // IPv4-IPv6 Translat. (RFC 8215): local-use NAT64, a network's own
  "100::/64", // Discard-Only Address Block (RFC 6666)
  "100:0:0:1::/64", // Dummy IPv6 Prefix (RFC 9780)
  "2001::/23", // IETF Protocol Assignments (RFC 2928): holds TEREDO 2001::/32, Benchmarking
  // 2001:2::/48, AMT 2001:3::/32, AS112-v6 2001:4:112::/48, ORCHIDv2 2001:20::/28, DETs 2001:30::/28
  "2001:db8::/32", // Documentation (RFC 3849)
  "2002::/16", // 6to4 (RFC 3056): relays are gone (RFC 7526), and it carries any IPv4 address
  "2620:4f:8000::/48", // Direct Delegation AS112 Service (RFC 7534)
  "3fff::/20", // Documentation (RFC 9637)
  "5f00::/16", // Segment Routing (SRv6) SIDs (RFC 9602)
  "fc00::/7", // Unique-Local (RFC 4193)
  "fe80::/10", // Link-Local Unicast (RFC 4291)
  // Not rows of the registry, and never public destinations either:
  "::/96", // IPv4-compatible (RFC 4291 §2.5.5.1, deprecated)
  "::ffff:0:0:0/96", // IPv4-translated (RFC 2765, SIIT, obsoleted)
  "fec0::/10", // Site-local (RFC 3879, deprecated)
  "ff00::/8", // Multicast: the IANA IPv6 Multicast Address Space Registry
]);

const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");

const inAny = (address: ipaddr.IPv4 | ipaddr.IPv6, list: Range[]) =>
  list.some((range) => address.kind() === range[0].kind() && address.match(range));

/** The IPv4 address inside an IPv4-mapped or NAT64 (64:ff9b::/96) address, which reaches it. */
function carriedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (!address.match(NAT64)) return undefined;
  const bytes = address.toByteArray().slice(12);
  return new ipaddr.IPv4(bytes);
}

/**
 * True for loopback, private, link-local, documentation, unspecified and every other special-purpose
 * address (IANA's registries), and for anything that is not an IP address.
 *
 * @example isPrivateAddress("192.0.2.1") // true: Documentation (TEST-NET-1)
 * @example isPrivateAddress("::ffff:8.8.8.8") // false: an IPv4-mapped public address
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  // node:net's check, not ipaddr.js's: ipaddr.js also reads "1.2.3" or "0x7f.1" as addresses.
  const family = isIP(bare);
  if (family === 0) return true;
  const parsed = ipaddr.parse(bare);
  if (family === 4) return inAny(parsed, ipv4Ranges);
  const ipv6 = parsed as ipaddr.IPv6;
  const inner = carriedIpv4(ipv6);
  if (inner) return inAny(inner, ipv4Ranges);
  return inAny(ipv6, ipv6Ranges);
}
