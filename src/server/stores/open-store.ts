// The content store the configuration names (publication.store), ready to be opened.

import type { Database } from "../../contract/database.ts";
import type { HostConfig } from "../config/load.ts";
import type { Logger } from "../logger.ts";
import type { ContentStore } from "./content-store.ts";
import { FileStore } from "./file-store.ts";
import { FolderWriter } from "./folder-writer.ts";
import { GitWriter } from "./git-writer.ts";
import { PagesStore } from "./pages-store.ts";
import { PRESETS } from "./presets.ts";

export function openStore(config: HostConfig, database: Database, logger: Logger): ContentStore {
  const store = config.store;
  if (store.type === "pages") return new PagesStore();
  const preset = PRESETS[store.preset];
  const types = Object.fromEntries(
    Object.entries(preset.types).map(([type, templates]) => [
      type,
      {
        path: store.paths[type as keyof typeof store.paths],
        url: config.publication.postTypeUrls[type as "note"] ?? templates.url,
      },
    ]),
  ) as typeof preset.types;
  const common = {
    preset,
    types,
    database,
    me: config.publication.me,
    timezone: config.publication.timezone,
  };
  if (store.type === "folder")
    return new FileStore({
      ...common,
      type: "folder",
      writer: new FolderWriter(store.folder),
      message: "{action} {url}",
    });
  const writer = new GitWriter({
    url: store.url,
    branch: store.branch,
    folder: store.folder,
    workdir: store.workdir,
    author: store.author,
    ...(store.token ? { token: store.token } : {}),
    logger,
  });
  return new FileStore({ ...common, type: "git", writer, message: store.message });
}
