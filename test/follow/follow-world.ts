// The real host with the syndication endpoint and its scheduler running (nobody clicks), a sandbox
// Mastodon server, and a photo server on the home network: what the follow-up tests act on through
// the host's own /micropub endpoint. The core and the scheduler tell time by the world's clock: a
// retry's backoff passes when the test moves it.
import { listen, type RunningServer } from "../../dev/sandbox/http-kit.ts";
import type { SandboxRequest } from "../../dev/sandbox/mastodon-server.ts";
import type { SandboxSoftware } from "../../dev/sandbox/mastodon-software.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { jpegBytes } from "../fakes/photo-server.ts";
import type { Engine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { ServerClock } from "../schedule/scheduled-server.ts";

export interface FollowWorld {
  app: EndpointServer;
  target: Target;
  photos: RunningServer;
  /** The clock of the core and the scheduler. */
  clock: ServerClock;
  /** POST /micropub with a JSON body (update, delete, undelete); answers its status. */
  micropub(body: Record<string, unknown>): Promise<number>;
  /** The post's stored properties (deleted posts included). */
  properties(url: string): Promise<Record<string, unknown>>;
  /** The sandbox's requests with this method and path pattern. */
  requests(method: string, path: RegExp): SandboxRequest[];
  /** Publishes a post with one photo and waits until the scheduler has sent it. */
  publishAndWait(content: string): Promise<string>;
  close(): Promise<void>;
}

export async function startFollowWorld(
  engine: Engine,
  pluginOptions: Record<string, unknown> = { schedule: { enabled: true, whenLive: false } },
  /** More of the config file, beside fetch.allowPrivate. */
  config: Record<string, unknown> = {},
  /** The server software the sandbox answers as, and the syndicator is told (decision 0060). */
  software?: SandboxSoftware,
): Promise<FollowWorld> {
  const clock = new ServerClock();
  const target = await startTarget(software ? { software } : {});
  const photos = await listen((_request, response) => {
    response.writeHead(200, { "content-type": "image/jpeg", "content-length": jpegBytes.length });
    response.end(jpegBytes);
  });
  const app = await startEndpointServer({
    engine,
    targets: [target],
    pluginOptions,
    config: { fetch: { allowPrivate: true }, ...config },
    clock,
  });
  const token = await app.server.token("create update delete");
  const world: FollowWorld = {
    app,
    target,
    photos,
    clock,
    async micropub(body) {
      const response = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      await response.body?.cancel();
      return response.status;
    },
    async properties(url) {
      const post = await app.server.host.posts?.findByUrl(url);
      if (!post) throw new Error(`No post at ${url}`);
      return post.properties;
    },
    requests(method, path) {
      return target.sandbox.requests.filter((r) => r.method === method && path.test(r.path));
    },
    async publishAndWait(content) {
      const url = await app.createPost({
        content,
        targets: [target.uid],
        fields: { photo: `${photos.url}/cat.jpg` },
      });
      await until("the copy's link is in the post", async () => {
        const syndication = (await world.properties(url)).syndication;
        return Array.isArray(syndication) && syndication.length === 1;
      });
      return url;
    },
    async close() {
      await app.close();
      await closeAll(target, photos);
    },
  };
  return world;
}
