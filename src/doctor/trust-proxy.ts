// trustProxy decides which X-Forwarded-For the server believes, and so the address every rate
// limit counts. Trusted where a client can reach the server without the proxy, or for a range
// that holds the clients themselves, it lets a client choose its own address.
import { isIP } from "node:net";
import type { Check, Problem } from "./problem.ts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);

/** A range so wide that clients are in it (fewer than 8 bits of an IPv4 address, 16 of IPv6). */
function tooWide(entry: string): boolean {
  const [address = "", bits] = entry.split("/");
  if (bits === undefined) return false;
  return Number(bits) < (isIP(address) === 6 ? 16 : 8);
}

export const trustProxy: Check = ({ config }) => {
  const { trustProxy: trusted, host, url } = config.application;
  const problems: Problem[] = [];
  const reachableFromOutside = !LOOPBACK_HOSTS.has(host);
  if (typeof trusted === "number" && trusted > 0 && reachableFromOutside)
    problems.push({
      option: "application.trustProxy",
      problem: `trusts ${trusted} proxy hop${trusted === 1 ? "" : "s"} from any address while application.host is ${host}, so a client reaching the port directly chooses its own address`,
      instead:
        'write the proxy\'s address instead (e.g. ["172.18.0.1"] in a container network), or listen on 127.0.0.1',
    });
  if (Array.isArray(trusted))
    for (const entry of trusted.filter(tooWide))
      problems.push({
        option: "application.trustProxy",
        problem: `${entry} holds the clients themselves, so any of them chooses its own address`,
        instead: 'write only the proxy\'s address (e.g. ["127.0.0.1"] or "loopback")',
      });
  if (trusted === false && url.startsWith("https://") && !reachableFromOutside)
    problems.push({
      option: "application.trustProxy",
      problem: `false while the server listens on ${host} behind an https URL, so every client counts as the proxy and one visitor's sign-in attempts lock out all`,
      instead: "write 1 (the one proxy in front of the server) or its address",
    });
  return problems;
};
