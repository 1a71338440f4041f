// Whether a URL the owner typed (a webhook's) names a private address, checked when it is saved so
// that the page can say so at once. safeFetch checks the address actually connected to again at
// every delivery: a name that later resolves elsewhere is refused then.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPrivateAddress } from "./private-addresses.ts";

/** The first private address `url`'s host is or resolves to; null when all are public or it does not resolve. */
export async function privateAddressOf(url: URL): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return isPrivateAddress(host) ? host : null;
  try {
    const addresses = await lookup(host, { all: true });
    return addresses.find((entry) => isPrivateAddress(entry.address))?.address ?? null;
  } catch {
    return null;
  }
}
