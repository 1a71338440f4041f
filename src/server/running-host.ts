// What the host's HTTP side (the app, its routes, the IndieAuth server) reads of the running host.
// Types only: host.ts builds the app, so the app and its routes taking the Host class from there
// closed an import circle through every one of them.
import type { Database } from "../contract/database.ts";
import type { EndpointPlugin, Plugin, SyndicatorPlugin } from "../contract/plugin.ts";
import type { Publication } from "../contract/syndicator.ts";
import type { TokenIssuer } from "./auth/tokens.ts";
import type { BackupManifest } from "./backup/make-backup.ts";
import type { HostConfig } from "./config/load.ts";
import type { I18n } from "./i18n.ts";
import type { Logger } from "./logger.ts";
import type { MediaStore } from "./media/media-store.ts";
import type { PostService } from "./posts/post-service-interface.ts";
import type { PublishingPosts } from "./stores/publishing-posts.ts";
import type { Views } from "./views.ts";

export interface RunningHost {
  readonly hostConfig: HostConfig;
  readonly publication: Publication;
  readonly logger: Logger;
  readonly i18n: I18n;
  readonly views: Views;
  readonly tokens: TokenIssuer;
  readonly media: MediaStore;
  readonly endpoints: EndpointPlugin[];
  readonly syndicators: SyndicatorPlugin[];
  readonly plugins: Plugin[];
  /** Null when the server runs without a database. */
  readonly database: Database | null;
  /** The host's own post service (the Micropub endpoint's); null without a database. */
  readonly posts: PostService | null;
  /** The post service with every change taken to the content store; null without a database. */
  readonly publishing: PublishingPosts | null;
  /** The credential of the server's local routes while it holds an embedded database folder, else null. */
  readonly localKey: string | null;
  /** A backup of what this server holds now (for `possekit backup`, through routes/backup.ts). */
  backup(): Promise<{ file: Buffer; manifest: BackupManifest }>;
}
