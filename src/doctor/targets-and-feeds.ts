// Each target is asked, as the server asks it at start, whether it would take a post (its
// credentials), without sending one; each feed is read as the server reads it. The plug-ins are
// loaded without a database: the doctor never opens the folder a running server holds.
import { builtInPlugins } from "../built-in-plugins.ts";
import { OutgoingFetchError, safeFetch } from "../net/safe-fetch.ts";
import { PACKAGE_NAME } from "../plugin/endpoint-syndicate.ts";
import { parseEndpointOptions } from "../plugin/options.ts";
import { ConfigError } from "../server/config/load.ts";
import { Host } from "../server/host.ts";
import { createLogger } from "../server/logger.ts";
import { verifyTarget } from "../syndication/runs/target-checks.ts";
import { type Check, noteDate, type Problem } from "./problem.ts";

export const targets: Check = async (context) => {
  const { config } = context;
  const host = new Host({ ...config, database: false }, { logger: createLogger("error"), builtInPlugins });
  const problems: Problem[] = [];
  try {
    await host.prepare();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((message) => {
      const [option = "config", ...rest] = message.split(": ");
      return { option, problem: rest.join(": ") || message, instead: "correct it as the message says" };
    });
  }
  try {
    await Promise.all(
      host.syndicators.map(async (syndicator) => {
        const outcome = await verifyTarget(syndicator, context.timeoutMs);
        if (outcome.ok !== false) return;
        const refused = outcome.status === 401 || outcome.status === 403;
        problems.push({
          option: syndicator.credentialSetting ?? syndicator.info.uid,
          problem: `${syndicator.info.name} (${syndicator.info.uid}) ${refused ? "refuses the credentials" : "cannot be reached"}: ${outcome.error}`,
          instead: refused
            ? `write a valid access token in ${syndicator.credentialSetting ?? "the target's options"}`
            : "check the target's url in the config, and that this machine reaches it (DNS, firewall)",
        });
      }),
    );
  } finally {
    await host.stop();
  }
  return problems;
};

export const feeds: Check = async (context) => {
  const { config, env } = context;
  if (!config.file.plugins.includes(PACKAGE_NAME)) return [];
  let list: ReturnType<typeof parseEndpointOptions>["feeds"];
  try {
    list = parseEndpointOptions(config.file[PACKAGE_NAME] ?? {}, env).feeds;
  } catch {
    return []; // Options the plug-in refuses: the targets' check above names them.
  }
  const problems: Problem[] = [];
  await Promise.all(
    list.map(async (feed, index) => {
      const option = `${PACKAGE_NAME}.feeds.${index}.url`;
      try {
        const response = await safeFetch(feed.url, {
          policy: { ownSite: config.publication.me, allowPrivate: config.file.fetch.allowPrivate },
          maxBytes: 64 * 1024,
          overflow: "truncate",
          timeoutMs: context.timeoutMs,
        });
        noteDate(context, feed.url, response.headers);
        if (!response.ok)
          problems.push({
            option,
            problem: `${feed.url} answers ${response.status} ${response.statusText}`,
            instead: "write the feed's current URL (open it in a browser to see where it moved)",
          });
      } catch (error) {
        if (!(error instanceof OutgoingFetchError)) throw error;
        problems.push({
          option,
          problem: `${feed.url} cannot be read (${error.message})`,
          instead:
            error.kind === "refused"
              ? "a feed on a private address needs fetch.allowPrivate: true"
              : "check the URL, and that this machine reaches it",
        });
      }
    }),
  );
  return problems;
};
