// What a server installs as "@possekit/endpoint-syndicate": the syndication endpoint plug-in.
import { EndpointSyndicate } from "./plugin/endpoint-syndicate.ts";

export default EndpointSyndicate;
export type { EndpointOptions } from "./plugin/options.ts";
export { EndpointSyndicate };
