export { InternetArchiveSyndicator } from "./internet-archive-syndicator.ts";
export type { InternetArchiveOptions } from "./internet-archive-options.ts";
