// Decision 0054, in a real browser (Debian's Chromium): the owner opens the Notifications tab,
// reads that notifications are off, fills in a real SMTP server on 127.0.0.1 (which wants a login),
// saves, presses Send a test and reads the server's own reply on the page; the mail arrives. The
// same button works with JavaScript off. axe-core finds nothing on the page, saved, in English,
// German and French at 1280 and 360 px: each language's page loaded once, checked at 1280 px, then
// narrowed to 360 px and checked again (decision 0077; the page lays out by CSS media queries alone,
// which the browser applies again on a resize), as the axe test of every page does.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startSmtp, type TestSmtp, textOf } from "../helpers/smtp-server.ts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const USER = "mailer";
const PASSWORD = `pw-${randomBytes(10).toString("hex")}`;
const REPLY = "2.0.0 Ok: queued as BROWSER1";

async function signIn(
  browser: Browser,
  server: TestServer,
  javaScriptEnabled: boolean,
): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled, locale: "en" });
  const page = await context.newPage();
  await page.goto(`${server.url}/syndicate/notifications`);
  await page.getByLabel("Password").fill(server.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/syndicate/notifications");
  await page.close();
  return context;
}

describe("Notifications in the browser", () => {
  let smtp: TestSmtp;
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    smtp = await startSmtp({ login: { user: USER, password: PASSWORD }, reply: REPLY });
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [], fetch: { allowPrivate: true } },
      plugins: [
        new EndpointSyndicate(
          { schedule: { enabled: false }, targets: { checkAtStart: false } },
          { env: {} },
        ),
      ],
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  it("saves e-mail settings and sends a test, showing the SMTP server's reply", async () => {
    const context = await signIn(browser, server, true);
    const page: Page = await context.newPage();
    await page.goto(`${server.url}/syndicate`);
    await page.getByRole("link", { name: "Notifications" }).click();
    await page.waitForURL((url) => url.pathname === "/syndicate/notifications");
    assert.match(
      (await page.locator("[data-notifications=off]").textContent()) ?? "",
      /Notifications are off/,
    );

    await page.getByLabel("SMTP server URL").fill(`smtp://${USER}@127.0.0.1:${smtp.port}`);
    await page.getByLabel("SMTP password").fill(PASSWORD);
    await page.getByLabel("Send to").fill("me@example.org");
    await page.getByLabel("Send from").fill("possekit@example.org");
    await page.locator("#email-form").getByLabel("A target has been paused for more than a day").uncheck();
    await page.getByRole("button", { name: "Save e-mail settings" }).click();
    await page.waitForURL((url) => url.pathname === "/syndicate/notifications");
    assert.match((await page.getByRole("status").first().textContent()) ?? "", /E-mail settings saved/);
    assert.equal(await page.locator("[data-notifications=off]").count(), 0);
    assert.match((await page.locator("#email [data-secret=saved]").textContent()) ?? "", /Saved on/);
    assert.equal(await page.getByLabel("SMTP password").inputValue(), "", "never filled in again");
    assert.ok(!(await page.content()).includes(PASSWORD));

    await page.locator("#email").getByRole("button", { name: "Send a test" }).click();
    await page.waitForURL((url) => url.pathname === "/syndicate/notifications");
    assert.equal(
      ((await page.getByRole("status").first().textContent()) ?? "").trim(),
      `Test mail sent through smtp://${USER}@127.0.0.1:${smtp.port}. The SMTP server answered: 250 ${REPLY}`,
    );
    assert.equal(smtp.mails.length, 1);
    assert.match(textOf(smtp.mails[0] ?? { to: [], raw: "" }), /Subject: possekit: a test notification/);
    await context.close();
  });

  it("sends a test with JavaScript off too", async () => {
    const context = await signIn(browser, server, false);
    const page = await context.newPage();
    await page.goto(`${server.url}/syndicate/notifications`);
    await page.locator("#email").getByRole("button", { name: "Send a test" }).click();
    await page.waitForURL((url) => url.pathname === "/syndicate/notifications");
    assert.match(
      (await page.getByRole("status").first().textContent()) ?? "",
      new RegExp(`The SMTP server answered: 250 ${REPLY}`),
    );
    assert.equal(smtp.mails.length, 2);
    await context.close();
  });

  it("has no axe violation in three languages at 1280 and 360 px", async () => {
    const signedIn = await signIn(browser, server, true);
    const storageState = await signedIn.storageState();
    await signedIn.close();
    const failures: string[] = [];
    for (const locale of ["en", "de", "fr"]) {
      const context = await browser.newContext({
        locale,
        storageState,
        viewport: { width: 1280, height: 900 },
      });
      const page = await context.newPage();
      await page.goto(`${server.url}/syndicate/notifications`);
      assert.equal(await page.getAttribute("html", "lang"), locale);
      await page.evaluate(AXE);
      // The desktop's width first, the page it was loaded at, then narrowed to the phone's.
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 900 });
        assert.equal(await page.evaluate("window.innerWidth"), width, `the layout axe sees is ${width}px`);
        const found = (await page.evaluate(
          "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
        )) as { id: string; nodes: { target: string[] }[] }[];
        for (const violation of found)
          failures.push(
            `${locale} ${width}px: ${violation.id} ${violation.nodes.map((n) => n.target.join(" ")).join(", ")}`,
          );
        // A page that scrolls sideways names what is too wide (a long URL that does not break).
        const wide = await page.evaluate(() =>
          document.documentElement.scrollWidth > document.documentElement.clientWidth
            ? Array.from(document.querySelectorAll("main *:not(.visually-hidden)"))
                .filter((element) => element.scrollWidth > element.clientWidth + 1)
                .map(
                  (element) =>
                    `${element.tagName.toLowerCase()} "${element.textContent?.trim().slice(0, 40)}"`,
                )
            : null,
        );
        if (wide) failures.push(`${locale} ${width}px: scrolls sideways: ${wide.join(", ")}`);
      }
      await context.close();
    }
    assert.deepEqual(failures, []);
  });
});
