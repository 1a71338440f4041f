// The syndicators that ship with possekit, by package name: the host loads the ones named in the
// config's `plugins` list and constructs each with the options given under its package name.
import type { SyndicatorPlugin } from "../contract/plugin.ts";
import { BlueskySyndicator } from "./bluesky/index.ts";
import { InternetArchiveSyndicator } from "./internet-archive/index.ts";
import { LinkedinSyndicator } from "./linkedin/index.ts";
import { MastodonSyndicator } from "./mastodon/index.ts";
import { MicropubSyndicator } from "./micropub/index.ts";
import { NostrSyndicator } from "./nostr/index.ts";
import { ThreadsSyndicator } from "./threads/index.ts";

export type SyndicatorConstructor = new (options: Record<string, unknown>) => SyndicatorPlugin;

export const builtInSyndicators: Record<string, SyndicatorConstructor> = {
  [MastodonSyndicator.packageName]: MastodonSyndicator,
  [BlueskySyndicator.packageName]: BlueskySyndicator,
  [InternetArchiveSyndicator.packageName]: InternetArchiveSyndicator,
  [MicropubSyndicator.packageName]: MicropubSyndicator,
  [LinkedinSyndicator.packageName]: LinkedinSyndicator,
  [ThreadsSyndicator.packageName]: ThreadsSyndicator,
  [NostrSyndicator.packageName]: NostrSyndicator,
};

export { isPermanentStatus, SyndicationError } from "../contract/syndication-error.ts";
export {
  BlueskySyndicator,
  InternetArchiveSyndicator,
  LinkedinSyndicator,
  MastodonSyndicator,
  MicropubSyndicator,
  NostrSyndicator,
  ThreadsSyndicator,
};
