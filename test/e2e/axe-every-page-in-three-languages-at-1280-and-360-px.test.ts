// Accessibility (decision 0024): axe-core finds no violation on any page (sign-in, the Syndicate page
// empty and with posts, the Accounts page, a post's results page and its preview, the status page) in English, German and French, on a
// desktop (1280 px) and a phone (360 px). German and French words are longer: a table column cut
// off behind a scroll area nobody can reach by keyboard is what axe's scrollable-region-focusable
// caught before.
// Each page is loaded once per language, checked at 1280 px, then narrowed to 360 px and checked
// again (decision 0077): the pages lay out by CSS media queries alone (no script reads the width),
// which the browser applies again on a resize, so the narrowed page is the page a phone loads; a
// context and a load per width doubled the file's time (361 s of CI's system part).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import type { BrowserContextOptions, Page } from "playwright";
import { type SyndicateWorld, startSyndicateWorld } from "./syndicate-world.ts";

// Evaluated rather than added as a script tag: the pages' Content-Security-Policy (rightly) refuses
// inline scripts, and the test must not loosen it.
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const LOCALES = ["en", "de", "fr"] as const;
/** The desktop's width first: each page is loaded at it, then narrowed to the phone's. */
const WIDTHS = [1280, 360] as const;
const HEIGHT = 900;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe's violations on the page as it is now (axe-core evaluated into it once per load). */
async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(AXE);
  const found = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Violation[];
  return found.map(
    (v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((node) => node.target.join(" ")).join(", ")})`,
  );
}

// Signs in once and hands the session cookie to every context: twelve sign-ins would pass the
// sign-in rate limit (10 per window), which is what it is for.
async function signedInState(world: SyndicateWorld): Promise<BrowserContextOptions["storageState"]> {
  const context = await world.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${world.server.url}/session/login`);
  await page.locator("input[type=password]").fill(world.server.password);
  await page.locator("input[type=password]").press("Enter");
  await page.waitForURL((url) => !url.pathname.startsWith("/session/login"));
  const state = await context.storageState();
  await context.close();
  return state;
}

describe("axe finds no violation on any page, in three languages, at 1280 and 360 px", () => {
  let world: SyndicateWorld;
  const pages: Record<string, string> = {};

  before(async () => {
    world = await startSyndicateWorld({ serverConfig: { "@possekit/endpoint-syndicate": {} } });
  });
  after(() => world.close());

  async function check(paths: Record<string, string>, options: { signedIn: boolean }): Promise<void> {
    const failures: string[] = [];
    const storageState = options.signedIn ? await signedInState(world) : undefined;
    for (const locale of LOCALES) {
      const context = await world.browser.newContext({
        locale,
        viewport: { width: WIDTHS[0], height: HEIGHT },
        ...(storageState ? { storageState } : {}),
      });
      const page = await context.newPage();
      page.setDefaultTimeout(60_000);
      for (const [name, path] of Object.entries(paths)) {
        await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
        await page.goto(`${world.server.url}${path}`);
        assert.equal(await page.getAttribute("html", "lang"), locale, `${name} is in ${locale}`);
        if (options.signedIn)
          assert.equal(new URL(page.url()).pathname, path.split("?")[0], `${name} shown signed in`);
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: HEIGHT });
          // The layout axe sees is the width's.
          assert.equal(await page.evaluate("window.innerWidth"), width, `${name} at ${width}px`);
          for (const violation of await violations(page))
            failures.push(`${name} ${locale} ${width}px: ${violation}`);
        }
      }
      await context.close();
    }
    assert.deepEqual(failures, []);
  }

  it("the sign-in page", async () => {
    await check({ "sign-in": "/session/login" }, { signedIn: false });
  });

  it("the Syndicate page with nothing to send, the Accounts page, and the status page", async () => {
    // A connected account, for its thread settings form (decision 0058) beside the configured
    // targets' values, shown as managed by the file.
    await world.server.host.accounts?.save({
      type: "mastodon",
      options: { url: world.social.url, user: "carol" },
      display: { name: "@carol@social" },
      secrets: { accessToken: "social-token" },
    });
    await check(
      {
        "syndicate (empty)": "/syndicate",
        accounts: "/syndicate/accounts",
        status: "/status",
        compose: "/syndicate/compose",
      },
      { signedIn: true },
    );
  });

  it("the Syndicate page with posts in every state, filtered, and a post's results page", async () => {
    world.other.setFailure(401, "The access token is invalid");
    await world.publish("Sent to one, refused by the other.", [world.socialUid, world.otherUid], "A heron");
    await world.publish("Sent everywhere.", [world.socialUid], "Morning walk");
    await world
      .syndication()
      .runs.startBatch("webhook")
      .then((run) => run.done);
    await world.publish("Not sent yet: waiting for a run.", [world.socialUid]);
    const [first] = (await world.server.host.posts?.list({ limit: 1 }))?.posts ?? [];
    assert.ok(first);
    pages.results = `/syndicate/posts/${first.id}`;
    // Decision 0060: the edit form shows each photo with its alt text, remove and replace.
    const withPhotos = await world.publish("Two photos to edit.", []);
    const photoPost = await world.server.host.posts?.update(withPhotos, {
      replace: {
        photo: [
          { url: `${world.server.url}/media/heron.jpg`, alt: "A heron" },
          `${world.server.url}/media/pond.jpg`,
        ],
      },
    });
    assert.ok(photoPost);
    await check(
      {
        "syndicate (posts)": "/syndicate",
        "syndicate (needs attention)": "/syndicate?state=attention",
        results: pages.results,
        // Decision 0046: the copy as the service shows it, beside the text and its buttons; and the
        // post's thread choice (decision 0058).
        preview: `${pages.results}/preview`,
        // Decision 0054: the edit form and the question before a delete.
        edit: `${pages.results}/edit`,
        "edit (photos)": `/syndicate/posts/${photoPost.id}/edit`,
        delete: `${pages.results}/delete`,
      },
      { signedIn: true },
    );
  });
});
