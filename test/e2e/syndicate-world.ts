// The world the browser tests act in: the real host (with its Micropub endpoint and the Syndicate
// page), two Mastodon syndicators against two local sandbox Mastodon servers (one that can be made
// slow, one that can be made to fail), and Debian's Chromium, headless. Nothing leaves 127.0.0.1.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from "playwright";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { EndpointPlugin } from "../../src/contract/plugin.ts";
import type { Syndication } from "../../src/syndication/syndication.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * Where the tests save their screenshots: test-results/screenshots (ignored by git), or the README's
 * docs/screenshots with `SCREENSHOTS_DIR=docs/screenshots npm test -- test/e2e`.
 */
export const SCREENSHOTS = resolve(
  join(dirname(fileURLToPath(import.meta.url)), "../.."),
  process.env.SCREENSHOTS_DIR ?? "test-results/screenshots",
);

/** The text of an element as one line, whitespace collapsed: what a reader takes in. */
export async function shownText(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? "").replace(/\s+/g, " ").trim();
}

export interface SyndicateWorld {
  server: TestServer;
  /** Answers every post (slowly when told, `social.hang(ms)`; when let through, `social.holdUntilReleased()`). */
  social: MastodonSandbox;
  /** A second account elsewhere, to be made to fail. */
  other: MastodonSandbox;
  socialUid: string;
  otherUid: string;
  browser: Browser;
  /** The endpoint plug-in's core, to start a run as the webhook or the command line would. */
  syndication(): Syndication;
  /** Creates a post through Micropub (form-encoded, mp-syndicate-to[]) and returns its URL. */
  publish(content: string, targets: string[], name?: string): Promise<string>;
  /** A signed-in page in a new browser context. */
  signedInPage(options?: BrowserContextOptions): Promise<Page>;
  /**
   * A signed-in page opened at `path` whose clock (Playwright's, in the page) stands still: its timers
   * (a page's polls) fire only when the test moves it (`page.clock.runFor`), however loaded the machine.
   * htmx has started: it starts with the document, on no timer (views/layout.njk).
   */
  signedInPageWithItsClockStill(path: string): Promise<Page>;
  close(): Promise<void>;
}

export async function startSyndicateWorld(
  options: {
    serverConfig?: Record<string, unknown>;
    /** `targets: false`: the server starts with no syndicator, as on a first start. */
    targets?: false;
    /**
     * A Chromium the file launched for its several worlds, which the world leaves open: a launch
     * per world cost each such file a browser start (decision 0077).
     */
    browser?: Browser;
  } = {},
): Promise<SyndicateWorld> {
  const social = await startMastodonSandbox({ accessToken: "social-token", user: "alice", name: "Social" });
  const other = await startMastodonSandbox({ accessToken: "other-token", user: "bob", name: "Other" });
  const socialTarget = new MastodonSyndicator({
    url: social.url,
    user: "alice",
    accessToken: "social-token",
  });
  const otherTarget = new MastodonSyndicator({ url: other.url, user: "bob", accessToken: "other-token" });
  const server = await startTestServer({
    // The scheduler off unless a test turns it on: a post served by possekit's own pages store is
    // live at once, and the scheduler would send it before the test's click.
    config: { "@possekit/endpoint-syndicate": { schedule: { enabled: false } }, ...options.serverConfig },
    plugins: options.targets === false ? [] : [socialTarget, otherTarget],
  });
  const browser = options.browser ?? (await launchChromium());
  mkdirSync(SCREENSHOTS, { recursive: true });
  const token = await server.token("create update");
  const contexts: BrowserContext[] = [];

  const world: SyndicateWorld = {
    server,
    social,
    other,
    socialUid: socialTarget.info.uid,
    otherUid: otherTarget.info.uid,
    browser,
    syndication() {
      const endpoint = server.host.endpoints.find((e: EndpointPlugin) => e.id === "endpoint-syndicate") as
        | (EndpointPlugin & { syndication: Syndication | null })
        | undefined;
      if (!endpoint?.syndication)
        throw new Error("The syndication endpoint is not installed with a database");
      return endpoint.syndication;
    },
    async publish(content, targets, name) {
      const body = new URLSearchParams({ h: "entry", content });
      if (name) body.set("name", name);
      for (const uid of targets) body.append("mp-syndicate-to[]", uid);
      const response = await fetch(`${server.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      const location = response.headers.get("location");
      if (response.status !== 201 || !location) {
        throw new Error(`Micropub create answered ${response.status}: ${await response.text()}`);
      }
      return location;
    },
    async signedInPage(contextOptions = {}) {
      const context = await browser.newContext(contextOptions);
      contexts.push(context);
      const page = await context.newPage();
      // Every wait here is for something local: 20 s leaves room for a busy machine and still fails
      // sooner than the default 30 s.
      page.setDefaultTimeout(60_000);
      await page.goto(`${server.url}/session/login`);
      await page.getByLabel(/password|passwort|mot de passe/i).fill(server.password);
      await page.getByLabel(/password|passwort|mot de passe/i).press("Enter");
      await page.waitForURL((url) => !url.pathname.startsWith("/session/login"));
      return page;
    },
    async signedInPageWithItsClockStill(path) {
      const page = await this.signedInPage();
      const start = Date.now();
      await page.clock.install({ time: start });
      await page.clock.pauseAt(start + 60_000);
      await page.goto(`${server.url}${path}`);
      return page;
    },
    async close() {
      // A borrowed browser outlives the world, its pages on this server do not.
      if (options.browser) for (const context of contexts) await context.close();
      else await browser.close();
      await server.close();
      await social.close();
      await other.close();
    },
  };
  return world;
}
