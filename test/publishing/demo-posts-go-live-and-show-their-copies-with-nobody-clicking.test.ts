// Decision 0032, the demo closes the loop by itself: `npm run demo` (dev/run-demo.ts) publishes its sample
// posts with the pages store, so each is live at once at its URL on the demo server; the scheduler
// sends them to the sandbox Mastodon with nobody clicking; each post's page then shows its copy's
// link (u-syndication), and the Syndicate page waits for nothing to be live. What the demo prints
// says so: it never asks to click "Syndicate all" for posts that have gone by themselves.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { mf2 } from "microformats-parser";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { eventually, until } from "../helpers/eventually.ts";
import { freePort } from "../helpers/server.ts";
import { signInAt } from "../helpers/sign-in.ts";

type Mf2Item = { type: string[]; properties: Record<string, unknown[]>; children?: Mf2Item[] };
const PASSWORD = "demo-test-password";

describe("npm run demo", () => {
  let demo: ChildProcess;
  let url: string;
  let output = "";
  before(async () => {
    const port = await freePort();
    url = `http://localhost:${port}`;
    // What `npm run demo` runs: the demo is a development tool, not a command of the package.
    demo = spawn(process.execPath, ["--import", "tsx", "dev/run-demo.ts"], {
      cwd: PACKAGE_ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        POSSEKIT_SOURCE: "1",
        PORT: String(port),
        PASSWORD,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    demo.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    demo.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until("the demo has started", () => output.includes("possekit demo is running"));
  });
  after(async () => {
    const exited = new Promise((resolve) => demo.once("exit", resolve));
    demo.kill("SIGTERM");
    await exited;
  });

  it("shows every sample post's copy on its page, and nothing waits to be live", async () => {
    const home = mf2(await (await fetch(`${url}/`)).text(), { baseUrl: `${url}/` });
    const feed = (home.items as Mf2Item[]).find((item) => item.type.includes("h-feed"));
    const posts = (feed?.children ?? []).map((entry) => String(entry.properties.url?.[0]));
    assert.equal(posts.length, 4, `the four sample posts are on the home page:\n${output}`);
    for (const post of posts) {
      assert.ok(post.startsWith(`${url}/notes/`), `a sample post lives on the demo server: ${post}`);
      const copies = await eventually(
        `the copy's link on ${post}\n${output}`,
        async () => {
          const page = mf2(await (await fetch(post)).text(), { baseUrl: post });
          const entry = (page.items as Mf2Item[]).find((item) => item.type.includes("h-entry"));
          const found = entry?.properties.syndication;
          return found && found.length > 0 ? found : undefined;
        },
        30_000,
      );
      assert.equal(copies.length, 1);
    }
    const { cookie } = await signInAt(url, PASSWORD);
    const page = await (await fetch(`${url}/syndicate`, { headers: { cookie, accept: "text/html" } })).text();
    assert.doesNotMatch(page, /to be live/);
    assert.match(page, /Nothing awaits syndication/);
    const advice = output.slice(output.indexOf("possekit demo is running"));
    assert.doesNotMatch(
      advice,
      /Then click|click[^.]*Syndicate all/i,
      "nothing to click for the sample posts",
    );
    assert.match(advice, /go to the sandbox by themselves within seconds, with nobody clicking/);
    assert.match(advice, new RegExp(`Then open: +Syndicate \\(${url}/syndicate\\)`));
  });
});
