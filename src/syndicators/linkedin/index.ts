export { LinkedinSyndicator } from "./linkedin-syndicator.ts";
