// publication.store, .preset and .postTypes, checked together and resolved: a folder or git store
// needs a preset, a pages store writes no files, a token is read from the environment variable the
// configuration names (never from the file). One line per problem, naming the option.
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { templateProblem } from "../stores/path-template.ts";
import { PRESETS } from "../stores/presets.ts";
import type { ConfigFile, PostTypeName, PresetName } from "./schema.ts";

export type ResolvedStore =
  | { type: "pages" }
  | { type: "folder"; folder: string; preset: PresetName; paths: Record<PostTypeName, string> }
  | {
      type: "git";
      url: string;
      branch: string;
      /** The site's subfolder in the repository, "" for its root. */
      folder: string;
      /** The working copy, in the data folder. */
      workdir: string;
      author: { name: string; email: string };
      message: string;
      token?: string;
      preset: PresetName;
      paths: Record<PostTypeName, string>;
    };

const TYPES: PostTypeName[] = ["note", "article", "photo"];

export function resolveStore(
  publication: ConfigFile["publication"],
  where: { baseDir: string; dataDir: string; env: NodeJS.ProcessEnv },
): { store: ResolvedStore; postTypeUrls: Partial<Record<PostTypeName, string>> } | { problems: string[] } {
  const problems: string[] = [];
  const { store: config, preset: presetName, postTypes } = publication;
  const preset = presetName ? PRESETS[presetName] : undefined;
  for (const type of TYPES) {
    const url = postTypes[type]?.url;
    const problem = url === undefined ? undefined : templateProblem(url);
    if (problem) problems.push(`publication.postTypes.${type}.url: ${problem}`);
    const path = postTypes[type]?.path;
    const pathProblem = path === undefined ? undefined : templateProblem(path);
    if (pathProblem) problems.push(`publication.postTypes.${type}.path: ${pathProblem}`);
    if (path !== undefined && config.type === "pages")
      problems.push(
        `publication.postTypes.${type}.path: the pages store writes no files; remove it, or choose a folder or git store`,
      );
  }
  if (config.type !== "pages" && !preset)
    problems.push(
      `publication.preset: a ${config.type} store writes files for a site generator; write "hugo", "jekyll" or "eleventy"`,
    );
  if (config.type === "pages" && preset)
    problems.push(
      `publication.preset: "${presetName}" is only used by a folder or git store; remove it, or write "store": {"type": "git", "url": "..."}`,
    );
  let token: string | undefined;
  if (config.type === "git" && config.tokenEnv) {
    token = where.env[config.tokenEnv];
    if (!token)
      problems.push(
        `publication.store.tokenEnv: the environment variable ${config.tokenEnv} is not set; set it to the token that may push to ${config.url}`,
      );
  }
  if (problems.length > 0 || !preset || config.type === "pages") {
    if (problems.length > 0) return { problems };
    const postTypeUrls = Object.fromEntries(
      TYPES.flatMap((type) => (postTypes[type]?.url ? [[type, postTypes[type]?.url]] : [])),
    );
    return { store: { type: "pages" }, postTypeUrls };
  }
  const paths = Object.fromEntries(
    TYPES.map((type) => [type, postTypes[type]?.path ?? preset.types[type].path]),
  ) as Record<PostTypeName, string>;
  const postTypeUrls = Object.fromEntries(
    TYPES.map((type) => [type, postTypes[type]?.url ?? preset.types[type].url]),
  ) as Record<PostTypeName, string>;
  if (config.type === "folder")
    return {
      store: { type: "folder", folder: resolve(where.baseDir, config.path), preset: preset.name, paths },
      postTypeUrls,
    };
  // A local path remote is relative to the config file, like every other path in it.
  const url = /^[a-z][a-z0-9+.-]*:\/\/|^[^/]+@[^/]+:/i.test(config.url)
    ? config.url
    : resolve(where.baseDir, config.url);
  const key = createHash("sha256").update(`${url}\n${config.branch}`).digest("hex").slice(0, 12);
  return {
    store: {
      type: "git",
      url,
      branch: config.branch,
      folder: config.path?.replace(/\/+$/, "") ?? "",
      workdir: join(where.dataDir, "site-repository", key),
      author: config.author,
      message: config.message,
      ...(token ? { token } : {}),
      preset: preset.name,
      paths,
    },
    postTypeUrls,
  };
}
