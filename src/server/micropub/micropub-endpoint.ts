// The host's Micropub endpoint (W3C Micropub), an endpoint plug-in like any other: posts enter the
// server through it, and the syndication endpoint later finds their mp-syndicate-to targets.
import { Router } from "express";
import { z } from "zod";
import type { MicropubPort } from "../../contract/micropub.ts";
import { parseOptions } from "../../contract/options/option-schemas.ts";
import type { EndpointPlugin, PluginMeta } from "../../contract/plugin.ts";
import type { HostServer } from "../host-server.ts";
import { mediaUpload } from "./media-endpoint.ts";
import { initialised, micropubConfiguration, micropubContext } from "./micropub-context.ts";
import { micropubPost, micropubService } from "./micropub-post.ts";
import { micropubQuery } from "./micropub-query.ts";

/** Parsed as every plug-in's options are: each mistake one line naming the option, a misspelt one included. */
const optionsSchema = z.strictObject({
  mountPath: z
    .string({ error: 'must be a path such as "/micropub"' })
    .regex(/^\/[A-Za-z0-9._~\-/]*$/, { error: 'must be a path such as "/micropub"' })
    .default("/micropub"),
});

export type MicropubOptions = z.input<typeof optionsSchema>;

export class MicropubEndpoint implements EndpointPlugin {
  readonly id = "micropub";
  readonly name = "Micropub endpoint";
  readonly options: z.infer<typeof optionsSchema>;
  readonly mountPath: string;
  /** Behind the host's authentication, which sets req.auth and removes access_token from the body. */
  readonly routes: Router;
  /** What POST / runs, for the host's own pages (the compose page): PossekitServer.micropub. */
  readonly service: MicropubPort;
  private server: HostServer | null = null;

  constructor(options: Record<string, unknown> = {}) {
    this.options = parseOptions(this.id, optionsSchema, options);
    this.mountPath = this.options.mountPath;
    const context = () => micropubContext(this.server);
    const media = () => initialised(this.server).media;
    this.routes = Router();
    this.routes.get(
      "/",
      micropubQuery(() => micropubConfiguration(this.server, this.mountPath)),
    );
    this.service = micropubService(context, media);
    this.routes.post("/", micropubPost(this.service));
    // The media endpoint keeps no posts: it works without a database.
    this.routes.post("/media", mediaUpload(media));
  }

  meta(): PluginMeta {
    return { url: import.meta.url, description: "Creates, updates and deletes posts from Micropub clients" };
  }

  /** The host's own endpoint: it gets the post service, which no other plug-in does. */
  init(server: HostServer): void {
    this.server = server;
    server.addEndpoint(this);
  }
}
