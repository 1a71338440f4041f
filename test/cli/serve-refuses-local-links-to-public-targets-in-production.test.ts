// With a public target (a real https Mastodon) and publication.me left at the server's own
// localhost address, every copy would link to a page nobody can open: production refuses to start,
// naming publication.me and what to write; development starts, warns, and says so on the page.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { publicationProblem } from "../../src/contract/publication-check.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { PLUGIN_PACKAGE } from "../endpoint/endpoint-server.ts";
import { startTestServer } from "../helpers/server.ts";
import { runCli } from "./run-cli.ts";

const cwd = mkdtempSync(join(tmpdir(), "possekit-cli-"));
after(() => rmSync(cwd, { recursive: true, force: true }));

const publicMastodon = {
  plugins: [PLUGIN_PACKAGE, "@possekit/syndicator-mastodon"],
  "@possekit/syndicator-mastodon": { url: "https://mastodon.example", user: "alice" },
};

describe("publication.me left local while posts go to a public service", () => {
  it("production: exits 1 with one line naming publication.me and what to write, no stack trace", async () => {
    writeFileSync(join(cwd, "local.json"), JSON.stringify({ ...publicMastodon, application: { port: 0 } }));
    const { code, stderr } = await runCli(["serve", "--config", "local.json"], {
      cwd,
      env: {
        NODE_ENV: "production",
        SECRET: "a-test-secret-of-32-characters..",
        PASSWORD: "pw",
        MASTODON_ACCESS_TOKEN: "token",
      },
    });
    assert.equal(code, 1, stderr);
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines[0], "The configuration is not valid:");
    assert.match(lines[1] ?? "", /^ {2}- publication\.me: is http:\/\/localhost:\d+\/, a local address/);
    assert.match(
      lines[1] ?? "",
      /write your site's public address, e\.g\. "publication": \{ "me": "https:\/\/example\.org" \}/,
    );
    assert.ok(!/^\s+at /m.test(stderr), stderr);
  });

  it("development: the Syndicate page says copies would link to a local address", async () => {
    const mastodon = new MastodonSyndicator({
      url: "https://mastodon.example",
      user: "alice",
      accessToken: "t",
    });
    const server = await startTestServer({
      config: { plugins: [PLUGIN_PACKAGE], publication: { me: "http://localhost:4000" } },
      plugins: [mastodon],
    });
    try {
      const { cookie } = await server.signIn();
      const html = await (
        await fetch(`${server.url}/syndicate`, { headers: { cookie, accept: "text/html" } })
      ).text();
      assert.match(
        html,
        /class="flash flash-error local-links">Copies will link to http:\/\/localhost:4000\//,
      );
    } finally {
      await server.close();
    }
  });

  it("a public site, or only local targets (a sandbox), is no problem", () => {
    const local = new MastodonSyndicator({ url: "http://127.0.0.1:3001", user: "demo", accessToken: "t" });
    const remote = new MastodonSyndicator({
      url: "https://mastodon.example",
      user: "alice",
      accessToken: "t",
    });
    assert.equal(publicationProblem("http://localhost:3000/", [local]), undefined);
    assert.equal(publicationProblem("https://example.org/", [remote]), undefined);
    assert.match(publicationProblem("http://127.0.0.1:3000/", [remote]) ?? "", /^publication\.me: /);
  });
});
