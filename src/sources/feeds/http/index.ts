// The feed source's HTTP side (decision 0037): polite fetching and WebSub push.
export {
  DEFAULT_FEED_MAX_BYTES,
  DEFAULT_FEED_TIMEOUT_MS,
  DEFAULT_POLL_SECONDS,
  type FeedBackoff,
  type FeedFetched,
  type FeedFetchOptions,
  type FeedFetchResult,
  type FeedFetchState,
  type FeedGone,
  type FeedNotModified,
  type FeedRefused,
  type FeedValidators,
  fetchFeed,
} from "./fetch-feed.ts";
export {
  handleWebSubCallback,
  type WebSubCallbackEvent,
  type WebSubCallbackOptions,
  type WebSubCallbackRequest,
  type WebSubCallbackResponse,
  type WebSubCallbackResult,
} from "./websub/callback.ts";
export { type DiscoveryInput, discoverWebSub, type WebSubDiscovery } from "./websub/hub-discovery.ts";
export { webSubMigrations } from "./websub/migrations.ts";
export { SqlWebSubSubscriptionStore } from "./websub/sql-subscription-store.ts";
export {
  type WebSubRequestOutcome,
  WebSubSubscriber,
  type WebSubSubscriberOptions,
} from "./websub/subscriber.ts";
export type {
  WebSubState,
  WebSubSubscription,
  WebSubSubscriptionStore,
} from "./websub/subscription-store.ts";
