export type { ThreadsOptions } from "./threads-options.ts";
export { ThreadsSyndicator } from "./threads-syndicator.ts";
