export { MicropubSyndicator } from "./micropub-syndicator.ts";
export type { MicropubOptions } from "./micropub-options.ts";
