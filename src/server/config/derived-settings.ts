// Settings the server derives from others, read by the full loader (load.ts) and by the quick reader
// of `possekit token` (token-settings.ts) alike, so that a token is signed as the server verifies it.
import { randomBytes } from "node:crypto";
import { keptSecret } from "./kept-secret.ts";

/** application.url, else where the server listens on this machine. */
export const applicationUrl = (url: string | undefined, port: number) => url ?? `http://localhost:${port}`;

/** The publication's URL with its trailing slash: publication.me, else the application's URL. */
export const publicationMe = (me: string | undefined, url: string) => `${me ?? url}/`;

/** SECRET, else a development secret made once and kept in the data folder. */
export const signingSecret = (env: NodeJS.ProcessEnv, dataDir: string) =>
  env.SECRET ?? keptSecret(dataDir, "secret", () => randomBytes(32).toString("base64url")).value;
