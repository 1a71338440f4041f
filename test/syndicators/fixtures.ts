// What every syndicator test needs: a publication, posts as JF2 properties, and the call options.
import type { Server } from "../../src/contract/plugin.ts";
import type { PostProperties, Publication, SyndicateOptions } from "../../src/contract/syndicator.ts";

export const publication: Publication = {
  me: "https://example.org/",
  postUrlPattern: "{me}notes/{slug}/",
  timezone: "UTC",
  name: "Example Site",
};

/** Long enough for any call on a loaded machine; short enough that a hang fails the test. */
export const HANG_MS = 60_000;

/** A note with text, a link and (when given) a photo, as the post service stores it. */
export function note(fields: Partial<PostProperties> = {}): PostProperties {
  return {
    type: "entry",
    url: "https://example.org/notes/hello/",
    published: "2024-05-01T10:00:00.000Z",
    "post-status": "published",
    content: { text: "Hello from my site, see https://example.com/page for more", html: "" },
    ...fields,
  };
}

/**
 * Options for one call: a fresh key unless given, and a signal that gives up after `timeoutMs`. The
 * default guards against a hang, not a slow machine: 5 s aborted the first call of a file under
 * load, while it still loaded @atproto/api (decision 0053). A test of the timeout itself passes its own.
 */
export function callOptions(
  idempotencyKey: string = crypto.randomUUID(),
  timeoutMs = HANG_MS,
): SyndicateOptions {
  return { idempotencyKey, signal: AbortSignal.timeout(timeoutMs) };
}

/** Options for one edit or deletion of the copy at `url`: callOptions() naming the copy. */
export function changeOptions(url: string): SyndicateOptions & { url: string } {
  return { ...callOptions(), url };
}

/**
 * The publication when the test's photo server stands in for the user's own site: photos there are
 * fetched although it listens on 127.0.0.1, as a self-hosted site's photos would be.
 */
export function siteServedBy(url: string): Publication {
  return { ...publication, me: `${url}/` };
}

/**
 * What a syndicator's init() reads of the host, with the host's explicit permission to reach private
 * addresses (fetch.allowPrivate): the tests' own servers listen on 127.0.0.1.
 */
export const hostAllowingPrivate = {
  addSyndicator: () => {},
  config: { fetch: { allowPrivate: true } },
  media: undefined,
} as unknown as Server;
