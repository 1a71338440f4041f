// What a server installs as "@possekit/endpoint-syndicate": the syndication endpoint plug-in. Under
// a host without possekit's services (Indiekit), its `database` option gives it a host of its own,
// assembled in src/hosts/indiekit and loaded only then.

import type { AccountFlow } from "./contract/account-flow.ts";
import { EndpointSyndicate as PluginWithoutOwnHost } from "./plugin/endpoint-syndicate.ts";
import type { OwnHostOpener } from "./plugin/indiekit/own-host.ts";
import { linkedinOAuthFlow } from "./syndicators/linkedin/oauth/linkedin-oauth-flow.ts";
import { mastodonOAuthFlow } from "./syndicators/mastodon/oauth/mastodon-oauth-flow.ts";
import { threadsOAuthFlow } from "./syndicators/threads/oauth/threads-oauth-flow.ts";

const openHostInsideIndiekit: OwnHostOpener = async (host, options) =>
  (await import("./hosts/indiekit/host-inside-indiekit.ts")).openHostInsideIndiekit(host, options);

export class EndpointSyndicate extends PluginWithoutOwnHost {
  protected override openOwnHost: OwnHostOpener | null = openHostInsideIndiekit;
  protected override accountFlows: readonly AccountFlow[] = [
    mastodonOAuthFlow,
    linkedinOAuthFlow,
    threadsOAuthFlow,
  ];
}

export default EndpointSyndicate;
export type { EndpointOptions } from "./plugin/options.ts";
