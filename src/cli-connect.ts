// `possekit connect mastodon --instance …`: connecting a Mastodon account where no browser can reach
// the server (a machine without a public address, reached over SSH). The instance shows the code
// itself (the out-of-band redirect, urn:ietf:wg:oauth:2.0:oob), the owner pastes it here, and the
// account is stored as the page stores it: token and app sealed, with PKCE where the instance lists
// it. Nothing secret is printed; the code is read from the standard input, never from an argument
// (which other users of the machine could see in the process list).
import { createInterface } from "node:readline";
import { builtInPlugins } from "./built-in-plugins.ts";
import { AccountError } from "./contract/accounts.ts";
import type { HostConfig } from "./server/config/load.ts";
import { DatabaseHeldError, folderHolder } from "./server/database/folder-lock.ts";
import { migrate } from "./server/database/migrate.ts";
import { Host } from "./server/host.ts";
import { createLogger, logLevelFromEnv } from "./server/logger.ts";
import { accountToStore, MastodonConnector } from "./syndicators/mastodon/oauth/mastodon-connector.ts";
import { InstanceAddressError } from "./syndicators/mastodon/oauth/mastodon-instance-address.ts";
import {
  MastodonOAuthClient,
  MastodonOAuthError,
  newPkce,
  OUT_OF_BAND_REDIRECT_URI,
} from "./syndicators/mastodon/oauth/mastodon-oauth-client.ts";
import { ScopeChoiceError } from "./syndicators/mastodon/oauth/mastodon-oauth-scopes.ts";
import { MastodonApps, mastodonOAuthMigrations } from "./syndicators/mastodon/oauth/mastodon-oauth-store.ts";

export interface ConnectIo {
  /** The pasted code's line; undefined when the input ends first. */
  readLine(prompt: string): Promise<string | undefined>;
  out(text: string): void;
  err(text: string): void;
}

/** The terminal: prompts on stdout, reads one line from stdin. */
export const terminal: ConnectIo = {
  readLine(prompt) {
    return new Promise((resolve) => {
      const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
      let answered = false;
      process.stdout.write(prompt);
      lines.once("line", (line) => {
        answered = true;
        lines.close();
        // Nothing more is read: an input left open (a pipe) must not keep the command alive.
        process.stdin.destroy();
        resolve(line);
      });
      lines.once("close", () => {
        if (!answered) resolve(undefined);
      });
    });
  },
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export async function connectFromCli(
  config: HostConfig,
  service: string | undefined,
  typedInstance: string | undefined,
  io: ConnectIo = terminal,
): Promise<number> {
  if (service !== "mastodon") {
    io.err(
      `possekit connect ${service ?? ""}: only "mastodon" is connected here (possekit connect mastodon --instance mastodon.social); connect the others from the Accounts page\n`,
    );
    return 1;
  }
  if (!typedInstance) {
    io.err(
      "--instance is required: your instance's name, address or your handle, e.g. --instance mastodon.social\n",
    );
    return 1;
  }
  if (config.database === false) {
    io.err("Connecting an account needs a database; application.database is false\n");
    return 1;
  }
  // The server's embedded folder cannot be opened beside it; its page connects the account live.
  const embedded = !/^postgres(ql)?:\/\//.test(config.database) && config.database !== "memory:";
  const holder = embedded ? folderHolder(config.database) : null;
  if (holder) {
    io.err(
      `The server (pid ${holder.pid}) holds the database folder: connect from its Accounts page${holder.url ? ` (${holder.url}/syndicate/accounts)` : ""}, or stop it and run this again\n`,
    );
    return 1;
  }
  const host = new Host(config, { logger: createLogger(logLevelFromEnv()), builtInPlugins });
  try {
    try {
      await host.prepare();
    } catch (error) {
      if (!(error instanceof DatabaseHeldError)) throw error;
      io.err(`${error.message}\n`);
      return 1;
    }
    const { database, accounts, secretSealer } = host;
    if (!database || !accounts || !secretSealer) {
      io.err("Connecting an account needs a database\n");
      return 1;
    }
    await migrate(database, mastodonOAuthMigrations);
    const client = new MastodonOAuthClient({
      policy: { allowPrivate: config.file.fetch.allowPrivate, ownSite: config.publication.me },
    });
    const connector = new MastodonConnector(client, new MastodonApps(database, secretSealer));
    const instance = await connector.discover(typedInstance);
    const app = await connector.appFor(instance, OUT_OF_BAND_REDIRECT_URI);
    const pkce = instance.pkce ? await newPkce() : undefined;
    const url = client.authorizeUrl(instance, app, {
      redirectUri: OUT_OF_BAND_REDIRECT_URI,
      ...(pkce ? { codeChallenge: pkce.challenge } : {}),
    });
    io.out(
      `Open this address in a browser where you are signed in to ${new URL(instance.origin).host}, and press Authorize:\n\n    ${url.href}\n\n`,
    );
    const code = (await io.readLine("Then paste the code it shows here: "))?.trim();
    if (!code) {
      io.err("No code was pasted: nothing was connected\n");
      return 1;
    }
    const connection = await connector.finish({
      instance,
      redirectUri: OUT_OF_BAND_REDIRECT_URI,
      ...(pkce ? { codeVerifier: pkce.verifier } : {}),
      callback: new URLSearchParams({ code }),
    });
    try {
      await accounts.save(accountToStore(connection));
    } catch (error) {
      await client.revoke(instance, connection.app, connection.accessToken).catch(() => {});
      throw error;
    }
    io.out(`Connected as ${connection.account.handle}\n`);
    return 0;
  } catch (error) {
    if (
      error instanceof InstanceAddressError ||
      error instanceof MastodonOAuthError ||
      error instanceof ScopeChoiceError ||
      error instanceof AccountError
    ) {
      io.err(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await host.stop();
  }
}
