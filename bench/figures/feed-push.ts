// Figure (decision 0037): a new entry on a site's feed, pushed, until its copy reaches Mastodon. The real
// server runs as a child process (`possekit serve`, PGlite, the scheduler on, the feed read every
// 24 hours so that no poll can help), with the Mastodon syndicator posting to the sandbox Mastodon.
// The site, its WebSub hub and the sandbox run in this process over real HTTP on 127.0.0.1. Each
// sample adds an entry to the feed, then either the hub publishes a signed notification to the
// callback possekit subscribed with, or a signed deploy webhook is posted; the figure is the time
// from that request leaving until the sandbox created the status (the send has then started and
// ended). The same server serves both, one sample after another.
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { type ChildServer, startChildServer } from "../../test/helpers/child-server.ts";
import { hubSignature256, SECRET } from "../../test/helpers/webhook-signers.ts";
import { FeedSite, type SiteEntry } from "../../test/sources/feeds/feed-site.ts";
import { TestHub } from "../../test/sources/feeds/test-hub.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { distribution, ms, sleep } from "../lib/stats.ts";

const ENDPOINT_PACKAGE = "@possekit/endpoint-syndicate";
const MASTODON_PACKAGE = "@possekit/syndicator-mastodon";
const GOAL_MS = 60_000;
/** A sample that takes longer than this is a failure, not a slow figure. */
const SAMPLE_TIMEOUT_MS = 120_000;

interface Sample {
  /** From the push leaving until the site was asked for its feed. */
  toReadMs: number;
  /** From the push leaving until the sandbox Mastodon created the status. */
  toStatusMs: number;
  /** The answer to the push (202 from the callback, 200 or 409 from the webhook). */
  answer: number;
}

const loadNow = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(", ");

async function until<T>(what: string, read: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`feed-push: timed out waiting for ${what}`);
    await sleep(2);
  }
}

export async function feedPush(context: BenchContext): Promise<FigureSection> {
  const samples = context.quick ? 3 : 11;
  const loadAtStart = loadNow();
  const site = await new FeedSite("atom").start();
  const hub = new TestHub();
  await hub.start();
  const mastodon = await startMastodonSandbox({ accessToken: "bench-feed-push-token" });
  const uid = `${mastodon.url}/@${mastodon.user}`;
  let entryNumber = 0;
  const newEntry = (): SiteEntry => {
    entryNumber++;
    return {
      id: `urn:bench:post:${entryNumber}`,
      url: `https://blog.example/posts/${entryNumber}/`,
      title: `Bench post ${entryNumber}`,
      content: `<p>Bench post number ${entryNumber}, pushed.</p>`,
      published: new Date().toISOString(),
    };
  };
  site.hub = hub.url;
  site.entries = [newEntry(), newEntry()];
  let server: ChildServer | undefined;
  const pushed: Sample[] = [];
  const webhooked: Sample[] = [];
  let startupMs = 0;
  try {
    const started = performance.now();
    server = await startChildServer({
      config: {
        fetch: { allowPrivate: true },
        plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
        [ENDPOINT_PACKAGE]: {
          schedule: { enabled: true, whenLive: false },
          targets: { checkAtStart: false },
          feeds: [{ url: `${site.url}/feed`, targets: [uid], pollSeconds: 86_400 }],
        },
        [MASTODON_PACKAGE]: { url: mastodon.url, user: mastodon.user },
      },
      env: { MASTODON_ACCESS_TOKEN: mastodon.accessToken, WEBHOOK_SECRET: SECRET },
    });
    startupMs = performance.now() - started;
    context.log("feed-push: server up, waiting for the hub's verification of the subscription");
    const verification = await Promise.race([
      hub.verification(0),
      sleep(SAMPLE_TIMEOUT_MS).then(() => {
        throw new Error(`feed-push: the server never subscribed at the hub\n${server?.output()}`);
      }),
    ]);
    if (verification.status !== 200)
      throw new Error(`feed-push: verification answered ${verification.status}`);
    const subscription = hub.requests[0]?.form;
    if (!subscription) throw new Error("feed-push: no subscription request reached the hub");
    if (mastodon.statuses.length !== 0) throw new Error("feed-push: the first read sent something");

    const measure = async (push: () => Promise<number>): Promise<Sample> => {
      site.entries = [newEntry(), ...site.entries];
      const statuses = mastodon.statuses.length;
      const reads = site.requests.length;
      let readAt: number | undefined;
      const startedAt = Date.now();
      const start = performance.now();
      // Watched while the push is in flight: a deploy webhook answers only after its run.
      const [answer, status] = await Promise.all([
        push(),
        until(
          "the status at the sandbox Mastodon",
          () => {
            if (readAt === undefined && site.requests.length > reads) readAt = performance.now();
            return mastodon.statuses.length > statuses ? mastodon.statuses.at(-1) : undefined;
          },
          SAMPLE_TIMEOUT_MS,
        ),
      ]);
      if (mastodon.statuses.length !== statuses + 1)
        throw new Error(`feed-push: ${mastodon.statuses.length - statuses} statuses for one entry`);
      // The sandbox stamps the status when it creates it; the poll above only notices it later.
      const toStatusMs = Date.parse(status.createdAt) - startedAt;
      return { toReadMs: (readAt ?? performance.now()) - start, toStatusMs, answer };
    };

    context.log(`feed-push: ${samples} WebSub notifications`);
    for (let sample = 0; sample < samples; sample++) {
      pushed.push(await measure(() => hub.publish(subscription, site.current().body)));
      await sleep(200);
    }
    context.log(`feed-push: ${samples} signed deploy webhooks`);
    for (let sample = 0; sample < samples; sample++) {
      webhooked.push(
        await measure(async () => {
          const body = JSON.stringify({ deployed: sample });
          const response = await fetch(`${server?.url}/syndicate/webhook`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-hub-signature-256": hubSignature256(body),
            },
            body,
          });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      await sleep(200);
    }
  } finally {
    await server?.stop();
    await Promise.all([site.close(), hub.server.close(), mastodon.close()]);
  }

  const row = (figure: string, list: Sample[], goal: boolean, answers: string): FigureRow => {
    const toStatus = distribution(list.map((sample) => sample.toStatusMs));
    const toRead = distribution(list.map((sample) => sample.toReadMs));
    return {
      figure,
      engine: "PGlite",
      measured: ms(toStatus.median),
      value: toStatus.median,
      unit: "ms",
      goal: goal ? "≤ 60 s" : "-",
      verdict: goal ? (toStatus.median <= GOAL_MS ? "PASS" : "MISS") : "INFO",
      note: `median of ${list.length} (min ${ms(toStatus.min)}, max ${ms(toStatus.max)}); the feed read after ${ms(toRead.median)} (median); answers ${answers}`,
    };
  };
  const answers = (list: Sample[]) =>
    Object.entries(
      list.reduce<Record<string, number>>((count, sample) => {
        count[sample.answer] = (count[sample.answer] ?? 0) + 1;
        return count;
      }, {}),
    )
      .map(([status, count]) => `${count} × ${status}`)
      .join(", ");
  return {
    id: "feed-push",
    title: "A new feed entry, pushed, until its copy is on Mastodon (decision 0037)",
    method:
      "`possekit serve` as a child process (PGlite, scheduler on, the feed's pollSeconds 86,400 so that no poll helps), the Mastodon syndicator posting to the sandbox Mastodon; a site serving an Atom feed that names a WebSub hub, the hub and the sandbox in the bench's process over HTTP on 127.0.0.1. Per sample: one new entry on the feed, then a signed WebSub notification from the hub to the callback possekit subscribed with (or a deploy webhook signed with X-Hub-Signature-256); the time from the request leaving until the sandbox created the status, so the send has started and ended.",
    rows: [
      row("New feed entry → copy on Mastodon, WebSub push: median", pushed, true, answers(pushed)),
      row(
        "New feed entry → copy on Mastodon, signed deploy webhook: median",
        webhooked,
        false,
        answers(webhooked),
      ),
    ],
    details: [
      `Server start-up to the first 200 from /health: ${ms(startupMs)}. Load average (1, 5, 15 min) at the start ${loadAtStart}, at the end ${loadNow()} (2 cores shared with other people's work: the figures include waiting for the CPU).`,
    ],
    data: { pushed, webhooked, startupMs },
  };
}
