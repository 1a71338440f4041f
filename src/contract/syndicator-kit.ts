// What every syndicator's class starts with, written once: where its credentials are set, and what
// it keeps of the host from init() (the rules for fetching a post's photos).
//
//   class ExampleSyndicator implements SyndicatorPlugin {
//     static readonly packageName = "@example/syndicator-example";
//     readonly credentialSetting = credentialSetting(ExampleSyndicator.packageName, options, {
//       options: ["token"],
//       environment: ["EXAMPLE_TOKEN"],
//     });
//     #host = HOST_NOT_JOINED;
//     init(server: Server): void {
//       this.#host = joinHost(server, this);
//     }
//   }
import type { MediaLibrary } from "./media.ts";
import type { Server, SyndicatorPlugin } from "./plugin.ts";

/**
 * Where the user sets the credentials, as they would write it (SyndicatorPlugin.credentialSetting):
 * the option under the package's name when the config file gave the first one, else the
 * environment variables, e.g. `"@possekit/syndicator-mastodon".accessToken` or `MASTODON_ACCESS_TOKEN`.
 */
export function credentialSetting(
  packageName: string,
  given: Record<string, unknown>,
  where: { options: readonly string[]; environment: readonly string[] },
): string {
  const [first, ...others] = where.options;
  if (first === undefined || given[first] === undefined) return where.environment.join(", ");
  return [`"${packageName}".${first}`, ...others.map((option) => `.${option}`)].join(", ");
}

/** What a syndicator keeps of the host: how to fetch the photos of a post. */
export interface HostFetchRules {
  /** The host's `fetch.allowPrivate`: URLs on private addresses may be fetched (a local sandbox). */
  allowPrivate: boolean;
  /** The host's uploads, read from storage rather than fetched from ourselves. */
  media: MediaLibrary | undefined;
}

/** Before init(): nothing private is fetched and the host's uploads are fetched like any URL. */
export const HOST_NOT_JOINED: HostFetchRules = Object.freeze({ allowPrivate: false, media: undefined });

/** The usual init() of a syndicator: registers it with the server and keeps the host's fetch rules. */
export function joinHost(server: Server, syndicator: SyndicatorPlugin): HostFetchRules {
  server.addSyndicator(syndicator);
  return { allowPrivate: server.config.fetch.allowPrivate, media: server.media };
}
