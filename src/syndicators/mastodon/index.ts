export { MastodonSyndicator } from "./mastodon-syndicator.ts";
export type { MastodonOptions } from "./mastodon-options.ts";
