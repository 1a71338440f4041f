// The plug-ins this package ships, by the package name a config file lists them under. The command
// line hands them to the host (HostOptions.builtInPlugins), which knows none of them itself; each
// module loads only when the config names it.
import type { BuiltInPlugins, PluginClass } from "./server/plugins.ts";

const syndicator = (packageName: string) => async (): Promise<PluginClass> => {
  const { builtInSyndicators } = await import("./syndicators/index.ts");
  const found = builtInSyndicators[packageName];
  if (!found) throw new Error(`${packageName} is not a syndicator of this package`);
  return found;
};

export const builtInPlugins: BuiltInPlugins = {
  "@possekit/endpoint-syndicate": async () => (await import("./index.ts")).default,
  "@possekit/syndicator-mastodon": syndicator("@possekit/syndicator-mastodon"),
  "@possekit/syndicator-bluesky": syndicator("@possekit/syndicator-bluesky"),
  "@possekit/syndicator-internet-archive": syndicator("@possekit/syndicator-internet-archive"),
  "@possekit/syndicator-micropub": syndicator("@possekit/syndicator-micropub"),
  "@possekit/syndicator-linkedin": syndicator("@possekit/syndicator-linkedin"),
  "@possekit/syndicator-threads": syndicator("@possekit/syndicator-threads"),
  "@possekit/syndicator-nostr": syndicator("@possekit/syndicator-nostr"),
};
