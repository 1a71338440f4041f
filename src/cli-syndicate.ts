// `possekit syndicate [--url URL]`: the same core, under the same lease, from the command line (cron).
// Prints a JSON line per post as it finishes, then a summary line.

import { builtInPlugins } from "./built-in-plugins.ts";
import { HttpError } from "./contract/http-error.ts";
import { PostNotFoundError } from "./contract/posts.ts";
import { EndpointSyndicate, PACKAGE_NAME } from "./plugin/endpoint-syndicate.ts";
import { parseEndpointOptions } from "./plugin/options.ts";
import { summarize } from "./plugin/responses/result-sink.ts";
import { checkSourceUrl } from "./plugin/source-url.ts";
import { TokenIssuer } from "./server/auth/tokens.ts";
import type { HostConfig } from "./server/config/load.ts";
import { DatabaseHeldError, folderHolder } from "./server/database/folder-lock.ts";
import { Host } from "./server/host.ts";
import { createLogger, logLevelFromEnv } from "./server/logger.ts";
import { SyndicationInProgressError } from "./syndication/syndication.ts";
import type { RunSummary } from "./syndication/types.ts";

export const EXIT = { ok: 0, error: 1, someFailed: 2, inProgress: 3, notFound: 4 } as const;

export async function syndicateFromCli(config: HostConfig, url: string | undefined): Promise<number> {
  if (config.database === false) {
    process.stderr.write("Syndication needs a database; application.database is false\n");
    return EXIT.error;
  }
  // An empty --url (cron's unset variable) must not turn into a run over every awaiting post.
  if (url !== undefined) {
    try {
      checkSourceUrl(url, "--url");
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      process.stderr.write(`${error.description}\n`);
      return EXIT.error;
    }
  }
  // A server running on the same embedded folder is asked over HTTP: opening the folder beside it
  // would wedge it (decision 0016).
  const embedded = !/^postgres(ql)?:\/\//.test(config.database) && config.database !== "memory:";
  const holder = embedded ? folderHolder(config.database) : null;
  if (holder?.url) return syndicateThroughServer(config, holder.url, url);
  const host = new Host(config, { logger: createLogger(logLevelFromEnv()), builtInPlugins });
  try {
    try {
      await host.prepare();
    } catch (error) {
      if (!(error instanceof DatabaseHeldError)) throw error;
      process.stderr.write(`${error.message}\n`);
      return EXIT.error;
    }
    const plugin = host.plugins.find((p): p is EndpointSyndicate => p instanceof EndpointSyndicate);
    const syndication = plugin?.syndication;
    if (!syndication) {
      process.stderr.write(
        "The syndication endpoint plug-in is not installed (check plugins in the config)\n",
      );
      return EXIT.error;
    }
    const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
    let summary: RunSummary;
    if (url !== undefined) {
      try {
        const result = await syndication.runs.syndicatePost(url, "cli");
        print({ type: "result", ...result });
        summary = summarize([result]);
      } catch (error) {
        if (error instanceof PostNotFoundError) {
          process.stderr.write(`No post exists at ${url}\n`);
          return EXIT.notFound;
        }
        throw error;
      }
    } else {
      try {
        const run = await syndication.runs.startBatch("cli");
        for await (const result of run.results) print({ type: "result", ...result });
        summary = await run.done;
      } catch (error) {
        if (error instanceof SyndicationInProgressError) {
          process.stderr.write(
            `Syndication is already in progress (started by ${error.inProgress.trigger} at ${error.inProgress.since.toISOString()})\n`,
          );
          return EXIT.inProgress;
        }
        throw error;
      }
    }
    print({ type: "summary", summary });
    return summary.failed > 0 || summary.partial > 0 ? EXIT.someFailed : EXIT.ok;
  } finally {
    await host.stop();
  }
}

/**
 * `possekit syndicate` while the server holds the embedded folder: the same request a script would
 * make (POST {mountPath} with Accept: application/x-ndjson, a token signed with SECRET), printing
 * the server's lines as they come and exiting as the direct run would.
 */
async function syndicateThroughServer(config: HostConfig, serverUrl: string, url: string | undefined) {
  const { mountPath } = parseEndpointOptions(config.file[PACKAGE_NAME] ?? {});
  const tokens = new TokenIssuer(config.secrets.secret, config.publication.me);
  const token = await tokens.issue({ scope: ["update"], clientId: "possekit-cli", lifetimeDays: 1 });
  const query = url === undefined ? "" : `?source_url=${encodeURIComponent(url)}`;
  let response: Response;
  try {
    response = await fetch(`${serverUrl}${mountPath}${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/x-ndjson" },
    });
  } catch (error) {
    process.stderr.write(
      `The server at ${serverUrl} holds the database but does not answer (${error instanceof Error ? error.message : String(error)})\n`,
    );
    return EXIT.error;
  }
  if (response.status !== 200) {
    const body = (await response.json().catch(() => ({}))) as { error_description?: string };
    process.stderr.write(`${body.error_description ?? `The server answered ${response.status}`}\n`);
    if (response.status === 409) return EXIT.inProgress;
    if (response.status === 404) return EXIT.notFound;
    return EXIT.error;
  }
  let summary: RunSummary | undefined;
  let pending = "";
  const decoder = new TextDecoder();
  const take = (line: string) => {
    if (line.trim() === "") return;
    process.stdout.write(`${line}\n`);
    const parsed = JSON.parse(line) as { type?: string; summary?: RunSummary };
    if (parsed.type === "summary") summary = parsed.summary;
  };
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
    pending += decoder.decode(read.value, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) take(line);
  }
  take(pending);
  if (!summary) {
    process.stderr.write("The server ended the run without a summary\n");
    return EXIT.error;
  }
  return summary.failed > 0 || summary.partial > 0 ? EXIT.someFailed : EXIT.ok;
}
