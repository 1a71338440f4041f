// Every copy links back to its post at publication.me. Left at its default (the server's own
// http://localhost address) while posts go to a public service, every copy would carry a link
// nobody can open: refused in production, warned about in development.
import type { SyndicatorPlugin } from "./plugin.ts";

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    host === "0.0.0.0"
  );
}

function hostOf(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  return new URL(url).hostname;
}

/**
 * The problem, as one configuration line naming publication.me and what to write, or undefined
 * when the links will work: the site is public, or every target is local (a sandbox, a test).
 */
export function publicationProblem(me: string, syndicators: readonly SyndicatorPlugin[]): string | undefined {
  const meHost = hostOf(me);
  if (meHost && !isLoopbackHost(meHost)) return undefined;
  const publicTargets = syndicators.filter((syndicator) => {
    const host = hostOf(syndicator.info.service?.url ?? syndicator.info.uid);
    return host !== undefined && !isLoopbackHost(host);
  });
  const first = publicTargets[0];
  if (!first) return undefined;
  const where = first.info.service?.url ?? first.info.uid;
  return `publication.me: is ${me}, a local address, but posts are sent to ${first.info.name} (${where}), so every copy would link to ${me}; write your site's public address, e.g. "publication": { "me": "https://example.org" }`;
}
