// `possekit syndicate [--url URL]`: the same core, under the same lease, from the command line (cron).
// Prints a JSON line per post as it finishes, then a summary line.
import type { HostConfig } from "../server/config/load.ts";
import { Host } from "../server/host.ts";
import { HttpError } from "../server/http-error.ts";
import { createLogger, logLevelFromEnv } from "../server/logger.ts";
import { PostNotFoundError } from "../server/posts/types.ts";
import { SyndicationInProgressError } from "../syndication/syndication.ts";
import type { RunSummary } from "../syndication/types.ts";
import { EndpointSyndicate } from "./endpoint-syndicate.ts";
import { summarize } from "./responses/result-sink.ts";
import { checkSourceUrl } from "./source-url.ts";

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
  const host = new Host(config, { logger: createLogger(logLevelFromEnv()) });
  try {
    await host.prepare();
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
        const result = await syndication.syndicatePost(url, "cli");
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
        const run = await syndication.startBatch("cli");
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
