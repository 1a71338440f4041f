// possekit serve | token | migrate | syndicate | connect | rekey | backup | restore | doctor (the demo is a
// development command: npm run demo)

import { parseArgs } from "node:util";
import { builtInPlugins } from "./built-in-plugins.ts";
import { ConfigError } from "./contract/config-error.ts";
import type { HostConfig } from "./server/config/load.ts";
import { DatabaseHeldError } from "./server/database/folder-lock.ts";
import type { Host as HostType } from "./server/host.ts";
import { createLogger, logLevelFromEnv } from "./server/logger.ts";

// Each command loads only what it uses: --help loads nothing beyond this file; token its three
// settings and its signer (node:crypto's HMAC), without zod unless the config needs explaining,
// never Express or a database driver; the host only for serve and migrate
// (test/cli/help-and-token-load-no-server-code.test.ts keeps it so).
const loadHost = async (): Promise<typeof HostType> => (await import("./server/host.ts")).Host;

/**
 * Opens the host's database (migrations applied, as a start does), runs `work` and stops the host;
 * prints what `work` says. A folder another process holds is one line and exit code 1.
 */
async function withPreparedHost(
  config: HostConfig,
  work: (host: HostType) => Promise<string>,
): Promise<number> {
  const Host = await loadHost();
  const host = new Host(config, { logger: createLogger(logLevelFromEnv()), builtInPlugins });
  try {
    await host.prepare();
    process.stdout.write(`${await work(host)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof DatabaseHeldError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  } finally {
    await host.stop();
  }
}

const USAGE: Record<string, string> = {
  main: `Usage: possekit <command> [options]

Commands:
  serve       Run the server (what npm start runs)
  token       Print an access token for scripts
  migrate     Apply database migrations and exit
  backup      Write a backup of the data (database, keys, uploads) to a file, while the server runs
  restore     Restore a backup into an empty data folder
  doctor      Check a configuration for production, one line per problem
  syndicate   Syndicate awaiting posts (or one post with --url), printing results as they come
  connect     Connect a Mastodon account without a browser reaching the server (paste a code)
  rekey       Seal every stored secret again under the current key (after a rotation)

Run possekit <command> --help for a command's options.`,
  serve: `Usage: possekit serve [--config PATH] [--port N]

Runs the server. Configuration comes from possekit.config.json in the working directory, or --config.`,
  token: `Usage: possekit token [--scope "create update"] [--days N] [--config PATH] [--port N]

Prints an access token (a JWT signed with SECRET) with the given space-separated scopes, for the
server that reads the same configuration file, SECRET and PORT (or --port); a line on stderr names
that server. The Status page makes tokens too, and lists them.`,
  migrate: `Usage: possekit migrate [--config PATH]

Applies the database migrations of the host and of every installed plug-in, then exits.`,
  backup: `Usage: possekit backup FILE [--config PATH]

Writes a backup to FILE: the embedded database (asked of the running server when one holds it, so
it need not stop), the data folder's keys (secret, password, account-secrets-key) and the uploaded files.
On PostgreSQL the database is not in it: back that up with pg_dump (docs/deploying.md).`,
  restore: `Usage: possekit restore FILE [--config PATH]

Restores a backup made by possekit backup into the configured data folder, which must be empty.
What was being sent when the backup was taken is resolved when the server starts, as after a crash.`,
  doctor: `Usage: possekit doctor [--config PATH]

Checks the configuration for production: application.url, SECRET and WEBHOOK_SECRET, the keys'
backup, the data folder's permissions, trustProxy, every target and feed, the clock. Prints one
line per problem with what to write instead; exits 1 when there is one, 0 when there is none.`,
  syndicate: `Usage: possekit syndicate [--url URL] [--config PATH]

Without --url: works through every post awaiting syndication, oldest first, under the same lock as
the endpoint (exits 3 when a run is already in progress). With --url: syndicates that one post.
Prints one JSON line per post as it finishes, then a summary line.`,
  connect: `Usage: possekit connect mastodon --instance INSTANCE [--config PATH]

Connects a Mastodon account (or one on any server speaking Mastodon's API) where no browser can
reach the server: prints the instance's authorize address, and reads the code the instance shows
once you press Authorize. INSTANCE is its name (mastodon.social), its address or your handle
(@you@mastodon.social). The account is stored as the Accounts page stores it; a server already
running on an embedded database folder connects from its Accounts page instead.`,
  rekey: `Usage: possekit rekey [--config PATH]

After ACCOUNT_SECRETS_KEY was changed (the key it replaced given in ACCOUNT_SECRETS_OLD_KEYS): seals
every secret of the connected accounts, the feeds' WebSub subscription secrets and the Mastodon
OAuth applications' client ids and secrets again under the current key, so that the old key can be
dropped. With the embedded database, stop the server first.`,
};

const common = {
  config: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function loadOrExplain(
  configPath: string | undefined,
  overrides: { port?: string; makeSecrets?: boolean } = {},
): Promise<HostConfig | null> {
  const { loadConfig } = await import("./server/config/load.ts");
  try {
    const env = overrides.port ? { ...process.env, PORT: overrides.port } : process.env;
    return loadConfig({
      ...(configPath ? { configPath } : {}),
      env,
      ...(overrides.makeSecrets === false ? { makeSecrets: false } : {}),
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return null;
    }
    throw error;
  }
}

async function serve(config: HostConfig): Promise<number> {
  const logger = createLogger(logLevelFromEnv());
  const Host = await loadHost();
  const host = new Host(config, { logger, builtInPlugins });
  try {
    await host.prepare();
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof DatabaseHeldError)) throw error;
    process.stderr.write(`${error.message}\n`);
    await host.stop();
    return 1;
  }
  let listening: Awaited<ReturnType<HostType["listen"]>>;
  try {
    listening = await host.listen();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    await host.stop();
    return 1;
  }
  // Without a configured url, name the port actually bound: PORT=0 asks the system for a free one.
  const url = config.file.application.url ? config.application.url : listening.url;
  logger.info(`possekit is running at ${url} (database: ${host.database?.engine ?? "none"})`);
  if (config.generatedPassword) {
    process.stdout.write(
      `\nSign in at ${url}/session/login with this password (generated once, kept in ${config.application.dataDir}/password):\n\n    ${config.generatedPassword}\n\nSet PASSWORD to choose your own.\n\n`,
    );
  } else if (!process.env.PASSWORD) {
    process.stdout.write(
      `Sign in at ${url}/session/login with the password in ${config.application.dataDir}/password\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  logger.info("Stopping: letting requests finish");
  await host.stop();
  return 0;
}

/**
 * Prints a token. Its three settings are read without the config schema when they are plainly right
 * (zod alone costs more than the command's 150 ms); otherwise the full loader validates and explains.
 */
async function token(
  values: Record<string, string | boolean | undefined>,
  configPath: string | undefined,
  port: string | undefined,
): Promise<number> {
  const { readTokenSettings } = await import("./server/config/token-settings.ts");
  // --port is PORT for this command, as for serve: the quick reader leaves PORT to the full loader.
  let settings = port === undefined ? readTokenSettings(configPath ? { configPath } : {}) : null;
  if (!settings) {
    const config = await loadOrExplain(configPath, port ? { port } : {});
    if (!config) return 1;
    settings = {
      url: config.application.url,
      secret: config.secrets.secret,
      me: config.publication.me,
      tokenLifetimeDays: config.application.tokenLifetimeDays,
    };
  }
  const scope = (typeof values.scope === "string" ? values.scope : "create update")
    .split(/\s+/)
    .filter(Boolean);
  const days = typeof values.days === "string" ? Number(values.days) : settings.tokenLifetimeDays;
  // The same signer as the server's issuer, with SECRET and the publication's URL.
  const { MAX_TOKEN_LIFETIME_DAYS, TokenSigner } = await import("./server/auth/token-signer.ts");
  if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_LIFETIME_DAYS) {
    process.stderr.write(
      `--days must be a whole number of days from 1 to ${MAX_TOKEN_LIFETIME_DAYS} (the largest, ten years)\n`,
    );
    return 1;
  }
  const signer = new TokenSigner(settings.secret, settings.me);
  process.stdout.write(`${await signer.issue({ scope, clientId: "possekit-cli", lifetimeDays: days })}\n`);
  // A server started with another PORT or configuration signs for another site and refuses the
  // token as "for another site": say which server this one is for, off stdout so scripts keep it.
  process.stderr.write(
    `Token for the server at ${settings.url} (publication ${settings.me}, scope "${scope.join(" ")}", ${days} days); a server with another configuration file, SECRET or PORT refuses it.\n`,
  );
  return 0;
}

/** Runs a command; a configuration mistake found on the way is one list of lines, never a stack trace. */
export async function main(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE.main}\n`);
    return command ? 0 : 1;
  }
  if (!(command in USAGE) || command === "main") {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE.main}\n`);
    return 1;
  }
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[] = [];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: {
        ...common,
        port: { type: "string" },
        scope: { type: "string" },
        days: { type: "string" },
        url: { type: "string" },
        instance: { type: "string" },
      },
      strict: true,
      allowPositionals: command === "connect" || command === "backup" || command === "restore",
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE[command]}\n`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(`${USAGE[command]}\n`);
    return 0;
  }
  if ((command === "backup" || command === "restore") && positionals.length !== 1) {
    process.stderr.write(`Name one file\n\n${USAGE[command]}\n`);
    return 1;
  }
  const configPath = typeof values.config === "string" ? values.config : undefined;
  const port = typeof values.port === "string" ? values.port : undefined;

  if (command === "token") return token(values, configPath, port);
  // A restore needs the data folder empty, a backup and the doctor only look: none makes the
  // secrets a first start would.
  const onlyReads = command === "restore" || command === "doctor" || command === "backup";
  const config = await loadOrExplain(configPath, {
    ...(port ? { port } : {}),
    ...(onlyReads ? { makeSecrets: false } : {}),
  });
  if (!config) return 1;

  switch (command) {
    case "backup":
      return (await import("./cli-backup.ts")).backupFromCli(config, positionals[0] as string);
    case "restore":
      return (await import("./cli-backup.ts")).restoreFromCli(config, positionals[0] as string);
    case "doctor":
      return (await import("./cli-doctor.ts")).doctorFromCli(config);
    case "serve":
      return serve(config);
    case "migrate": {
      if (config.database === false) {
        process.stderr.write("application.database is false: there is no database to migrate\n");
        return 1;
      }
      return withPreparedHost(config, async () => "Migrations applied.");
    }
    case "rekey": {
      if (config.database === false) {
        process.stderr.write("application.database is false: there are no stored accounts to rekey\n");
        return 1;
      }
      return withPreparedHost(config, async (host) => {
        const count = await host.rekey();
        return `Sealed ${count} secret(s) again under key ${host.accounts?.currentKeyId ?? "?"}.`;
      });
    }
    case "syndicate": {
      const { syndicateFromCli } = await import("./cli-syndicate.ts");
      return syndicateFromCli(config, typeof values.url === "string" ? values.url : undefined);
    }
    case "connect": {
      const { connectFromCli } = await import("./cli-connect.ts");
      const instance = typeof values.instance === "string" ? values.instance : undefined;
      return connectFromCli(config, positionals[0], instance);
    }
  }
  return 1;
}
