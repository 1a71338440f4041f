export type { InternetArchiveOptions } from "./internet-archive-options.ts";
export { InternetArchiveSyndicator } from "./internet-archive-syndicator.ts";
