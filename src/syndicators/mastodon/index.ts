export type { MastodonOptions } from "./mastodon-options.ts";
export { MastodonSyndicator } from "./mastodon-syndicator.ts";
