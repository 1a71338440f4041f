// `npm run demo`: the whole thing working in a minute, with no account and no network. A local
// sandbox Mastodon is the target, an in-memory database holds a few sample posts awaiting
// syndication, the pages store serves them (live at once), and the server prints how to sign in.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtInPlugins } from "../src/built-in-plugins.ts";
import { loadConfig } from "../src/server/config/load.ts";
import { firstFreePorts } from "../src/server/free-port.ts";
import { Host } from "../src/server/host.ts";
import { createLogger, logLevelFromEnv } from "../src/server/logger.ts";
import { MastodonSyndicator } from "../src/syndicators/mastodon/index.ts";
import { startMastodonSandbox } from "./sandbox/mastodon-server.ts";

const SAMPLE_POSTS = [
  {
    name: "Hello, IndieWeb",
    content: "My first post on my own site, copied to Mastodon by possekit.",
    daysAgo: 3,
  },
  {
    content:
      "Publish on your own site, syndicate elsewhere: POSSE keeps the original at home and the copies where your friends are.",
    category: ["indieweb", "posse"],
    daysAgo: 2,
  },
  { content: "A note with a link: https://indieweb.org/POSSE", daysAgo: 1 },
  {
    name: "Notes from the weekend",
    content: "Walked by the river, read a book, wrote this post.",
    daysAgo: 0,
  },
];

export async function runDemo(options: { port?: number; sandboxPort?: number } = {}): Promise<number> {
  const logger = createLogger(logLevelFromEnv());
  const chosen = options.port ?? (process.env.PORT ? Number(process.env.PORT) : undefined);
  // Unless a port was asked for, move aside from a taken 3000 (the server and its sandbox need two).
  const port = chosen ?? (await firstFreePorts(3000, 2)) ?? 3000;
  if (chosen === undefined && port !== 3000) logger.info(`Port 3000 is taken; the demo uses ${port}`);
  const accessToken = randomBytes(16).toString("hex");
  const sandbox = await startMastodonSandbox({
    accessToken,
    port: options.sandboxPort ?? port + 1,
    latencyMs: 600,
    name: "Sandbox Mastodon",
    user: "demo",
  });
  const password = process.env.PASSWORD ?? "demo-password";
  const dataDir = mkdtempSync(join(tmpdir(), "possekit-demo-"));
  const config = loadConfig({
    config: {
      application: { name: "possekit demo", port, database: "memory:", dataDir },
      publication: { name: "My demo site" },
    },
    env: {
      ...process.env,
      PASSWORD: password,
      SECRET: process.env.SECRET ?? randomBytes(24).toString("hex"),
    },
  });
  const mastodon = new MastodonSyndicator({ url: sandbox.url, user: sandbox.user, accessToken });
  const host = new Host(config, { logger, plugins: [mastodon], builtInPlugins });
  await host.prepare();
  const posts = host.posts;
  if (!posts) throw new Error("the demo needs its database");
  for (const sample of SAMPLE_POSTS) {
    const published = new Date(Date.now() - sample.daysAgo * 86_400_000 - 3_600_000).toISOString();
    await posts.create({
      properties: {
        type: "entry",
        ...(sample.name ? { name: sample.name } : {}),
        content: sample.content,
        published,
        ...(sample.category ? { category: sample.category } : {}),
        "mp-syndicate-to": [mastodon.info.uid],
      },
    });
  }
  await host.listen();
  process.stdout.write(`
possekit demo is running.

  Server:            ${config.application.url}
  Sign in:           ${config.application.url}/session/login   password: ${password}
  Then open:         Syndicate (${config.application.url}/syndicate)
  Sandbox Mastodon:  ${sandbox.url}/@${sandbox.user}   (where the copies appear)

${SAMPLE_POSTS.length} sample posts are live on the demo server (${config.application.url}/, the pages store). They
go to the sandbox by themselves within seconds, with nobody clicking: by the time you sign in they
have gone, and each row on the Syndicate page, and each post's page, links to its copy. A post you
publish yourself goes the same way; "Syndicate all" sends what awaits at once. Everything is in
memory: stop with Ctrl+C.
`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await host.stop();
  await sandbox.close();
  return 0;
}
