export type { NostrOptions } from "./nostr-options.ts";
export { NostrSyndicator } from "./nostr-syndicator.ts";
