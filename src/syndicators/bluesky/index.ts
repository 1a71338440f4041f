export { BlueskySyndicator } from "./bluesky-syndicator.ts";
export type { BlueskyOptions } from "./bluesky-options.ts";
