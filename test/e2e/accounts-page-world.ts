// What the browser tests of connecting an account from the Accounts page set up: a server with the
// endpoint and no account yet (fetching from 127.0.0.1 allowed, where the sandboxes listen), a real
// browser, a post written earlier through Micropub naming the account about to be connected, and the
// owner's way in. The service's sandbox is each test's own.
import type { Browser, Page } from "playwright";
import { EndpointSyndicate } from "../../src/index.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

export interface AccountsPageWorld {
  server: TestServer;
  browser: Browser;
  /** Writes a post through Micropub naming `target`, an account the server does not have yet. */
  postWaitingFor(target: string, content: string): Promise<void>;
  /** Opens the Accounts page in a new tab, is sent to sign in, signs in and is back on it. */
  signIn(): Promise<Page>;
  close(): Promise<void>;
}

export async function startAccountsPageWorld(): Promise<AccountsPageWorld> {
  const server = await startTestServer({
    engine: pgliteEngine,
    config: { plugins: [], fetch: { allowPrivate: true } },
    plugins: [new EndpointSyndicate({}, { env: process.env })],
  });
  const browser = await launchChromium().catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  return {
    server,
    browser,
    postWaitingFor: async (target, content) => {
      await createPostAt(server.url, await server.token("create update"), { content, targets: [target] });
    },
    signIn: async () => {
      const page = await browser.newPage();
      await page.goto(`${server.url}/syndicate/accounts`);
      await page.waitForURL((url) => url.pathname === "/session/login");
      await page.getByLabel("Password").fill(server.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname === "/syndicate/accounts");
      return page;
    },
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Types the instance under "Connect with your instance" and presses the button: the instance's
 * own authorize page is open afterwards, and its address is returned.
 */
export async function connectInstance(page: Page, instanceUrl: string): Promise<URL> {
  await page
    .locator("form")
    .filter({ hasText: "Connect with your instance" })
    .getByLabel("Instance")
    .fill(instanceUrl);
  await page.getByRole("button", { name: "Connect with your instance" }).click();
  await page.waitForURL((url) => url.origin === instanceUrl && url.pathname === "/oauth/authorize");
  return new URL(page.url());
}
