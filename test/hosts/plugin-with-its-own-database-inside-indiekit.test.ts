// Decision 0042: inside Indiekit (a host offering only addEndpoint, its endpoints and its
// publication), the plug-in's `database` option gives it a database of its own: the core is built
// on it, the navigation item no longer needs Indiekit's database, the targets are ours (from the
// `syndicators` option) and Indiekit's own syndicators, and a folder another process holds is
// refused. The same against the real Indiekit: interop/indiekit/.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import express from "express";
import type { EndpointPlugin, NavigationItem } from "../../src/contract/plugin.ts";
import type { PostProperties } from "../../src/contract/syndicator.ts";
import { openHostInsideIndiekit } from "../../src/hosts/indiekit/host-inside-indiekit.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { type IndiekitSyndicator, indiekitTargets } from "../../src/plugin/indiekit/indiekit-syndicators.ts";
import { parseEndpointOptions } from "../../src/plugin/options.ts";
import { DatabaseHeldError } from "../../src/server/database/folder-lock.ts";

const HOLDER = `
const { openHostInsideIndiekit } = await import(${JSON.stringify(new URL("../../src/hosts/indiekit/host-inside-indiekit.ts", import.meta.url).href)});
const { parseEndpointOptions } = await import(${JSON.stringify(new URL("../../src/plugin/options.ts", import.meta.url).href)});
const host = { addEndpoint() {}, publication: { me: "https://blog.example/" } };
await openHostInsideIndiekit(host, parseEndpointOptions({ database: { folder: process.argv[1] } }));
process.stdout.write("holding\\n");
setInterval(() => {}, 60_000);
`;

const folders: string[] = [];
function dataFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "possekit-indiekit-"));
  folders.push(folder);
  return join(folder, "posse");
}
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A syndicator in Indiekit's shape (@indiekit/syndicator-*: info, syndicate(properties, publication)). */
function indiekitStyleSyndicator(uid: string, copyUrl: (properties: PostProperties) => string) {
  const calls: Array<{ properties: PostProperties; publication: unknown }> = [];
  return {
    calls,
    syndicator: {
      name: "Example syndicator",
      info: { uid, name: "@me@social.example", service: { name: "Example", url: "https://social.example/" } },
      async syndicate(properties: PostProperties, publication: unknown) {
        calls.push({ properties, publication });
        return copyUrl(properties);
      },
    },
  };
}

/** What Indiekit's host object offers a plug-in's init (packages/indiekit/index.js), nothing more. */
function indiekitLikeHost(syndicationTargets: IndiekitSyndicator[] = []) {
  const added: EndpointPlugin[] = [];
  const host = {
    endpoints: new Set<EndpointPlugin>(),
    publication: { me: "https://blog.example/", syndicationTargets },
    config: { application: { name: "Indiekit", url: "https://blog.example" } },
    addEndpoint(endpoint: EndpointPlugin) {
      added.push(endpoint);
      host.endpoints.add(endpoint);
    },
  };
  return { host, added };
}

describe("the plug-in inside Indiekit with its own database", () => {
  it("builds the core on its own folder, and its navigation item no longer needs Indiekit's database", async () => {
    const theirs = indiekitStyleSyndicator("https://social.example/@me", () => "https://social.example/1");
    const { host, added } = indiekitLikeHost([theirs.syndicator]);
    const plugin = new EndpointSyndicate({
      mountPath: "/posse",
      database: { folder: dataFolder() },
      targets: { checkAtStart: false },
      schedule: { enabled: false },
    });
    await plugin.init(host);
    try {
      assert.deepEqual(added, [plugin], "the endpoint is added once its core is ready");
      assert.ok(plugin.syndication, "the core is built on the plug-in's own database");
      assert.equal((plugin.navigationItems as NavigationItem).requiresDatabase, false);
      const targets = await plugin.syndication.reads.targets();
      assert.deepEqual(
        targets.map((target) => target.uid),
        ["https://social.example/@me"],
        "Indiekit's own syndicator is one of the targets",
      );
      assert.equal(await plugin.syndication.due.nextDue(), null, "nothing waits in a new database");
    } finally {
      await plugin.stopOwnHost();
    }
  });

  it("lists possekit's targets from its syndicators option beside Indiekit's, read at each use", async () => {
    const { host } = indiekitLikeHost();
    const plugin = new EndpointSyndicate({
      database: { folder: dataFolder() },
      mountPath: "/posse",
      targets: { checkAtStart: false },
      schedule: { enabled: false },
      syndicators: {
        "@possekit/syndicator-internet-archive": {},
      },
    });
    await plugin.init(host);
    try {
      // A syndicator plug-in listed after ours in Indiekit's plugins adds itself later.
      const later = indiekitStyleSyndicator("https://later.example/", () => "https://later.example/2");
      host.publication.syndicationTargets.push(later.syndicator);
      const uids = (await plugin.syndication?.reads.targets())?.map((target) => target.uid);
      assert.deepEqual(uids, ["https://web.archive.org/", "https://later.example/"]);
    } finally {
      await plugin.stopOwnHost();
    }
  });

  it("refuses a folder another process holds, and takes it over once that process is gone", async () => {
    const folder = dataFolder();
    const options = parseEndpointOptions({ database: { folder } });
    // Another Indiekit process with the plug-in on the same folder, holding it until killed.
    const holder = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", HOLDER, folder], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const [line] = await once(holder.stdout, "data");
      assert.equal(String(line).trim(), "holding");
      await assert.rejects(openHostInsideIndiekit(indiekitLikeHost().host, options), DatabaseHeldError);
    } finally {
      holder.kill("SIGKILL");
      await once(holder, "exit");
    }
    const second = await openHostInsideIndiekit(indiekitLikeHost().host, options);
    await second.stop();
  });
});

describe("the page inside Indiekit with a database", () => {
  it("renders as a page of its own, in the language Indiekit chose, with our assets beneath the mountPath", async () => {
    const theirs = indiekitStyleSyndicator("https://social.example/@me", () => "https://social.example/1");
    const { host } = indiekitLikeHost([theirs.syndicator]);
    const plugin = new EndpointSyndicate({
      mountPath: "/posse",
      database: { folder: dataFolder() },
      targets: { checkAtStart: false },
      schedule: { enabled: false },
    });
    await plugin.init(host);
    // Indiekit's order: its session (set by its authentication) and its i18n, then the plug-in's routes.
    const app = express();
    app.use((req, _res, next) => {
      Object.assign(req, {
        session: { access_token: "indiekit-token", scope: "create update" },
        getLocale: () => "de",
      });
      next();
    });
    app.use(plugin.mountPath, plugin.routesPublic);
    app.use(plugin.mountPath, plugin.routes);
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/posse`;
    try {
      const page = await fetch(base, { headers: { accept: "text/html" } });
      const html = await page.text();
      assert.equal(page.status, 200, html.slice(0, 500));
      assert.match(html, /<html lang="de">/);
      assert.match(html, /<title>Syndizieren · Indiekit<\/title>/);
      assert.match(html, /href="\/posse\/assets\/style.css"/);
      assert.match(html, /@me@social.example/, "Indiekit's syndicator is listed among the targets");
      assert.doesNotMatch(html, /syndicate\.(?!css\b|js\b)[a-zA-Z]+/, "no raw keys");
      assert.doesNotMatch(html, /session\/logout/, "signing out is Indiekit's");
      const style = await fetch(`${base}/assets/style.css`);
      assert.equal(style.status, 200);
      assert.match(style.headers.get("content-type") ?? "", /text\/css/);
      const htmx = await fetch(`${base}/assets/vendor/htmx.min.js`);
      assert.equal(htmx.status, 200);
      await htmx.arrayBuffer();
      await style.arrayBuffer();
    } finally {
      server.close();
      await plugin.stopOwnHost();
    }
  });
});

describe("Indiekit's syndicators as targets", () => {
  it("are sent the post and Indiekit's own publication, and give the copy's URL", async () => {
    const theirs = indiekitStyleSyndicator(
      "https://social.example/@me",
      (p) => `https://social.example/${p.name}`,
    );
    const publication = { me: "https://blog.example/", syndicationTargets: [theirs.syndicator] };
    const [target] = indiekitTargets(publication.syndicationTargets, publication);
    assert.ok(target);
    const url = await target.syndicate(
      { name: "hello", url: "https://blog.example/hello" },
      { me: "x", postUrlPattern: "", timezone: "UTC", name: "x" },
      { idempotencyKey: "k", signal: new AbortController().signal },
    );
    assert.equal(url, "https://social.example/hello");
    assert.equal(theirs.calls[0]?.publication, publication);
    assert.equal(indiekitTargets(publication.syndicationTargets, publication)[0], target, "one wrapper each");
  });

  it("fail with the syndicator's own complaint, or when no URL comes back, or at the core's timeout", async () => {
    const options = () => ({ idempotencyKey: "k", signal: new AbortController().signal });
    const ours = { me: "x", postUrlPattern: "", timezone: "UTC", name: "x" };
    const broken = {
      name: "Mastodon syndicator",
      info: { uid: "https://mastodon.example", error: "User name required" },
      syndicate: async () => "https://mastodon.example/1",
    };
    const silent = { info: { uid: "https://silent.example" }, syndicate: async () => undefined };
    const hanging = { info: { uid: "https://hang.example" }, syndicate: () => new Promise<string>(() => {}) };
    const [first, second, third] = indiekitTargets([broken, silent, hanging], {});
    await assert.rejects(first?.syndicate({}, ours, options()) ?? Promise.reject(), /User name required/);
    await assert.rejects(second?.syndicate({}, ours, options()) ?? Promise.reject(), /returned no URL/);
    const timeout = new AbortController();
    const waiting = third?.syndicate({}, ours, { idempotencyKey: "k", signal: timeout.signal });
    timeout.abort(new Error("timed out"));
    await assert.rejects(waiting ?? Promise.reject(), /timed out/);
    assert.equal(indiekitTargets([{ info: {} }, { name: "no syndicate", info: { uid: "u" } }], {}).length, 0);
  });
});

describe("the database option", () => {
  const problem = (database: unknown) => {
    try {
      parseEndpointOptions({ database });
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };

  it("takes a folder or a PostgreSQL URL, and says in one line what to write otherwise", () => {
    assert.equal(problem({ folder: "data/posse" }), "accepted");
    assert.equal(problem({ url: "postgres://me@127.0.0.1/posse" }), "accepted");
    assert.match(problem({}), /^endpoint-syndicate: option "database" needs folder or url: write/);
    assert.match(problem({ folder: "a", url: "postgres://h/d" }), /"database" takes folder or url, not both/);
    assert.match(problem({ url: "mysql://h/d" }), /"database.url" must be a URL like "postgres:/);
    assert.match(problem("data"), /"database" must be \{ folder: "data\/posse" \} or \{ url:/);
    for (const wrong of [{}, { url: "mysql://h/d" }, "data"])
      assert.equal(problem(wrong).split("\n").length, 1);
  });
});
