// Figure (decision 0051): how soon the Syndicate page paints with 1,000 posts awaiting. The real host on
// PGlite, 1,000 awaiting posts seeded in the posts table, Debian's Chromium signed in; each sample
// is a fresh page load of /syndicate, read from the browser's own paint timing (first-contentful-
// paint from navigation start), and the server's part of it (responseStart − requestStart).
import { launchChromium } from "../../test/helpers/chromium.ts";
import { startTestServer } from "../../test/helpers/server.ts";
import { BenchTarget } from "../fixtures/bench-targets.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureSection } from "../lib/report.ts";
import { seedPosts } from "../lib/seed.ts";
import { distribution, ms } from "../lib/stats.ts";

const GOAL_MS = 500;
const AWAITING = 1_000;

interface Sample {
  firstPaintMs: number;
  serverMs: number;
}

export async function pageFirstPaint(context: BenchContext): Promise<FigureSection> {
  const samples = context.quick ? 3 : 5;
  const target = new BenchTarget("https://bench.example/@page");
  // As deployed (NODE_ENV=production: templates compiled once, not read again for every row);
  // nothing sends while the page is measured: the scheduler is off.
  const server = await startTestServer({
    config: {
      publication: { me: "https://example.org/" },
      "@possekit/endpoint-syndicate": { schedule: { enabled: false } },
    },
    plugins: [target],
    env: { NODE_ENV: "production" },
  });
  const browser = await launchChromium();
  try {
    const database = server.host.database;
    if (!database) throw new Error("The bench server has no database");
    await seedPosts(database, { count: AWAITING, targets: [target.uid], awaitEvery: 1 });
    const browserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await browserContext.newPage();
    await page.goto(`${server.url}/session/login`);
    await page.locator("input[type=password]").fill(server.password);
    await page.locator("input[type=password]").press("Enter");
    await page.waitForURL((url) => !url.pathname.startsWith("/session/login"));
    const measured: Sample[] = [];
    // One load to warm the templates and the database's caches, then the samples.
    for (let index = 0; index <= samples; index += 1) {
      await page.goto(`${server.url}/syndicate`, { waitUntil: "load" });
      // The paint entry is delivered once painted: waited for, not read too early.
      const sample = await page.evaluate(
        () =>
          new Promise<Sample>((resolve) => {
            const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
            new PerformanceObserver((list) => {
              const paint = list.getEntriesByName("first-contentful-paint")[0];
              if (paint)
                resolve({
                  firstPaintMs: paint.startTime,
                  serverMs: navigation.responseStart - navigation.requestStart,
                });
            }).observe({ type: "paint", buffered: true });
          }),
      );
      if (index > 0) measured.push(sample);
      context.log(`page first paint: ${ms(sample.firstPaintMs)} (server ${ms(sample.serverMs)})`);
    }
    const rows = await page.locator(".post-row").count();
    await browserContext.close();
    const paint = distribution(measured.map((sample) => sample.firstPaintMs));
    const serverPart = distribution(measured.map((sample) => sample.serverMs));
    return {
      id: "page-first-paint",
      title: "Syndicate page: first paint with 1,000 posts awaiting",
      method: `A fresh load of /syndicate in Debian's Chromium (1280 px, signed in) against the host (NODE_ENV=production) on PGlite with ${AWAITING.toLocaleString("en")} awaiting posts; first-contentful-paint from navigation start, median of ${samples} after one warm-up load. The page lists the first ${rows} of them.`,
      rows: [
        {
          figure: "first paint, 1,000 awaiting (median)",
          engine: "PGlite",
          measured: ms(paint.median),
          value: paint.median,
          unit: "ms",
          goal: `≤ ${GOAL_MS} ms`,
          verdict: paint.median <= GOAL_MS ? "PASS" : "MISS",
        },
        {
          figure: "  of which the server's answer (median)",
          engine: "PGlite",
          measured: ms(serverPart.median),
          value: serverPart.median,
          unit: "ms",
          goal: "-",
          verdict: "INFO",
        },
      ],
      details: [
        `First paint: min ${ms(paint.min)}, median ${ms(paint.median)}, max ${ms(paint.max)}; the server's part: min ${ms(serverPart.min)}, median ${ms(serverPart.median)}, max ${ms(serverPart.max)}.`,
      ],
      data: { samples: measured, rowsShown: rows, awaiting: AWAITING },
    };
  } finally {
    await browser.close();
    await server.close();
  }
}
