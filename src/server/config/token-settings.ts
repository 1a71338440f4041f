// `possekit token` needs three settings: SECRET, the publication's URL ({me}) and the token
// lifetime. The full loader validates the whole file with zod, whose loading alone costs about
// 150 ms of CPU, more than the command's whole budget (decision 0029). This reads just those settings
// with plain checks when they are plainly right, deriving them as load.ts does; anything unusual
// (a value of the wrong kind, production, PORT) returns null, and the full loader then reads,
// validates and explains. test/cli/token-reads-the-settings-the-server-reads.test.ts compares both.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { MAX_TOKEN_LIFETIME_DAYS } from "../auth/token-signer.ts";
import { applicationUrl, publicationMe, signingSecret } from "./derived-settings.ts";

export interface TokenSettings {
  /** The server the token is for: application.url, else where it listens on this machine. */
  url: string;
  secret: string;
  me: string;
  tokenLifetimeDays: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** An absolute http(s) URL without its trailing slashes (the schema's urlWithoutTrailingSlash). */
function plainUrl(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !URL.canParse(value)) return null;
  const { protocol, hostname } = new URL(value);
  if (!/^https?:$/.test(protocol) || hostname === "") return null;
  return value.replace(/\/+$/, "");
}

const wholeNumber = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;

export function readTokenSettings(
  options: { configPath?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): TokenSettings | null {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (env.NODE_ENV === "production" || env.PORT !== undefined) return null;
  if (env.SECRET !== undefined && env.SECRET.length < 16) return null;
  const path = options.configPath ? resolve(cwd, options.configPath) : join(cwd, "possekit.config.json");
  let raw: unknown = {};
  if (options.configPath || existsSync(path)) {
    try {
      raw = JSON.parse(readFileSync(path, "utf8"));
    } catch {
      return null;
    }
  }
  if (!isObject(raw)) return null;
  const application = raw.application ?? {};
  const publication = raw.publication ?? {};
  if (!isObject(application) || !isObject(publication)) return null;
  const { port = 3000, dataDir = "data", tokenLifetimeDays = 90 } = application;
  const url = plainUrl(application.url);
  const me = plainUrl(publication.me);
  if (url === null || me === null) return null;
  if (!wholeNumber(port, 0, 65_535) || !wholeNumber(tokenLifetimeDays, 1, MAX_TOKEN_LIFETIME_DAYS))
    return null;
  if (typeof dataDir !== "string" || dataDir === "") return null;
  const baseDir = existsSync(path) ? dirname(path) : cwd;
  const secret = signingSecret(env, resolve(baseDir, dataDir));
  const serverUrl = applicationUrl(url, port);
  return { url: serverUrl, secret, me: publicationMe(me, serverUrl), tokenLifetimeDays };
}
