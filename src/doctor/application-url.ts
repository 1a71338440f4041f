// application.url is what every service is told to come back to (OAuth callbacks, IndieAuth, deploy
// webhooks): behind a proxy it must be the public https address, and it must reach this server.
import { type Check, noteDate, type Problem } from "./problem.ts";

const EXAMPLE = 'e.g. "https://posse.example.org" (the address your reverse proxy serves)';

export const applicationUrl: Check = async (context) => {
  const { config } = context;
  const url = config.file.application.url;
  if (!url)
    return [
      {
        option: "application.url",
        problem: `not set, so services are told ${config.application.url}`,
        instead: `write the public https URL, ${EXAMPLE}`,
      },
    ];
  const problems: Problem[] = [];
  if (!url.startsWith("https://"))
    problems.push({
      option: "application.url",
      problem: `${url} is not https (sign-in cookies, OAuth and webhooks need it)`,
      instead: `write the https URL instead, ${EXAMPLE}`,
    });
  try {
    const response = await context.fetch(`${url}/health`, {
      signal: AbortSignal.timeout(context.timeoutMs),
      redirect: "manual",
    });
    noteDate(context, url, response.headers);
    const body = (await response.json().catch(() => null)) as { status?: unknown } | null;
    if (response.status !== 200 || body?.status !== "ok")
      problems.push({
        option: "application.url",
        problem: `${url}/health answers ${response.status}${response.status === 200 ? " but not as possekit does" : ""}, so it does not reach this server`,
        instead:
          "write the URL this server is reached at, or make the proxy pass it to the server (docs/deploying.md)",
      });
  } catch (error) {
    // fetch says "fetch failed" and puts the system's reason (ECONNREFUSED, ENOTFOUND) in its cause.
    const reason = (error as { cause?: NodeJS.ErrnoException }).cause ?? (error as NodeJS.ErrnoException);
    problems.push({
      option: "application.url",
      problem: `${url} cannot be reached from here (${reason.code ?? reason.message})`,
      instead:
        "write the URL this server is reached at, and start the server and its proxy before running doctor",
    });
  }
  return problems;
};
