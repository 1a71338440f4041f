// Decision 0027: `template` (nunjucks), `appendUrl` and Bluesky's `linkCard` are checked when the server
// starts: a template that does not compile stops the start with one line naming the option.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtInPlugins } from "./built-in-plugins.ts";
import { ConfigError } from "./server/config/load.ts";
import { loadPlugins } from "./server/plugins.ts";

const options: Record<string, Record<string, unknown>> = {
  "@possekit/syndicator-mastodon": { url: "https://mastodon.example", user: "alice", accessToken: "t" },
  "@possekit/syndicator-bluesky": { handle: "alice.example.com", password: "p" },
  "@possekit/syndicator-micropub": { micropubEndpoint: "https://micropub.example/", accessToken: "t" },
};

async function problems(name: string, extra: Record<string, unknown>): Promise<string[]> {
  try {
    await loadPlugins([name], () => ({ ...options[name], ...extra }), process.cwd(), builtInPlugins);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("template options are checked at start", () => {
  for (const name of Object.keys(options)) {
    it(`${name}: an unclosed tag is one line naming "template"`, async () => {
      const lines = await problems(name, { template: "{{ name " });
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(
        lines[0] ?? "",
        new RegExp(`^${name.replace(/[/.]/g, "\\$&")}\\.template: is not a valid nunjucks template: `),
      );
      assert.doesNotMatch(lines[0] ?? "", /\n| {4}at /, "no stack trace");
    });

    it(`${name}: an unknown filter, found by rendering a sample post`, async () => {
      const lines = await problems(name, { template: "{{ name | shout }}" });
      assert.equal(lines.length, 1);
      assert.match(lines[0] ?? "", /\.template: is not a valid nunjucks template: .*shout/);
    });

    it(`${name}: appendUrl says what to write`, async () => {
      assert.deepEqual(await problems(name, { appendUrl: "sometimes" }), [
        `${name}.appendUrl: must be "always", "ifCut" or "never"`,
      ]);
    });

    it(`${name}: a valid template and appendUrl start`, async () => {
      assert.deepEqual(
        await problems(name, { template: "{{ name or content }} {{ url }}", appendUrl: "never" }),
        [],
      );
    });
  }

  it("Bluesky: linkCard must be true or false", async () => {
    assert.deepEqual(await problems("@possekit/syndicator-bluesky", { linkCard: "yes" }), [
      "@possekit/syndicator-bluesky.linkCard: must be true or false",
    ]);
  });
});
