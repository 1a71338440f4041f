// Indiekit's own syndicators (`publication.syndicationTargets`, each with `info` and
// `syndicate(properties, publication)`: @indiekit/syndicator-mastodon, -bluesky, …) as targets of
// our core, so that a post inside Indiekit goes to the targets its user configured there as well.
// They know nothing of idempotency keys, checkpoints, previews or edits: the core then keeps to
// what it does for any such target (a send in doubt is confirmed by the user, never repeated).

import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { PostProperties, SyndicateOptions } from "../../contract/syndicator.ts";

/** What Indiekit's syndicators have in common (Indiekit's syndicator interface). */
export interface IndiekitSyndicator {
  name?: string;
  info?: {
    uid?: string;
    name?: string;
    service?: { name?: string; url?: string; photo?: string };
    user?: { name?: string; url?: string };
    /** Set by a syndicator that lacks what it needs (e.g. "User name required"). */
    error?: string;
  };
  syndicate?(properties: PostProperties, publication: unknown): Promise<string | undefined>;
}

const wrapped = new WeakMap<IndiekitSyndicator, SyndicatorPlugin>();

/**
 * The targets among Indiekit's syndicators: those with a uid and a syndicate method. One wrapper
 * per syndicator, so that the core sees the same target at every read.
 *
 * @example indiekitTargets(indiekit.publication.syndicationTargets, indiekit.publication)
 */
export function indiekitTargets(
  syndicators: readonly IndiekitSyndicator[] | undefined,
  publication: unknown,
): SyndicatorPlugin[] {
  const targets: SyndicatorPlugin[] = [];
  for (const syndicator of syndicators ?? []) {
    if (!syndicator.info?.uid || typeof syndicator.syndicate !== "function") continue;
    let target = wrapped.get(syndicator);
    if (!target) {
      target = asTarget(syndicator, syndicator.info.uid, publication);
      wrapped.set(syndicator, target);
    }
    targets.push(target);
  }
  return targets;
}

function asTarget(syndicator: IndiekitSyndicator, uid: string, publication: unknown): SyndicatorPlugin {
  const info = syndicator.info ?? {};
  const service =
    info.service?.name && info.service.url ? { name: info.service.name, url: info.service.url } : undefined;
  return {
    id: "indiekit-syndicator",
    name: syndicator.name ?? info.name ?? uid,
    meta: { description: "A syndicator of Indiekit's" },
    init() {},
    info: { uid, name: info.name ?? uid, ...(service ? { service } : {}) },
    // Indiekit passes its own publication (with `me`), not ours: its syndicators read it.
    async syndicate(properties: PostProperties, _ours: unknown, options: SyndicateOptions): Promise<string> {
      if (info.error) throw new Error(`${syndicator.name ?? uid}: ${info.error}`);
      const send = syndicator.syndicate?.call(syndicator, properties, publication);
      const url = await abortable(Promise.resolve(send), options.signal);
      if (typeof url !== "string" || url === "")
        throw new Error(`${syndicator.name ?? uid} returned no URL for the copy`);
      return url;
    },
  };
}

/** Indiekit's syndicators take no signal: the core's timeout ends the wait, not the request. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
