export type { MicropubOptions } from "./micropub-options.ts";
export { MicropubSyndicator } from "./micropub-syndicator.ts";
