// The set-up the tests of schedule.whenLive share (decision 0015): a Mastodon sandbox target, a static
// site the posts are published on (404 until deployed) and the endpoint's server sending by itself
// only what is live, all telling time by one test clock; started before a describe block's tests and
// closed after them.
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import type { Engine } from "../helpers/databases.ts";
import { startedForTheBlock } from "../helpers/started-for-the-block.ts";
import { ServerClock } from "./scheduled-server.ts";
import { type StaticSite, startStaticSite } from "./static-site.ts";

export interface WhenLiveServer {
  readonly app: EndpointServer;
  readonly target: Target;
  readonly site: StaticSite;
  readonly clock: ServerClock;
}

/** Call inside a describe block: its before and after hooks start and close what it answers. */
export function whenLiveServer(engine: Engine): WhenLiveServer {
  const clock = new ServerClock();
  const running = startedForTheBlock(
    "whenLiveServer",
    async () => {
      const target = await startTarget();
      const site = await startStaticSite();
      const app = await startEndpointServer({
        engine,
        targets: [target],
        config: { publication: { me: site.url } },
        pluginOptions: { schedule: { enabled: true, whenLive: true } },
        clock,
      });
      return { app, target, site };
    },
    async ({ app, target, site }) => {
      await app.close();
      await closeAll(target, site);
    },
  );
  return {
    get app() {
      return running().app;
    },
    get target() {
      return running().target;
    },
    get site() {
      return running().site;
    },
    clock,
  };
}
