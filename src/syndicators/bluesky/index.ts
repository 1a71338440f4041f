export type { BlueskyOptions } from "./bluesky-options.ts";
export { BlueskySyndicator } from "./bluesky-syndicator.ts";
