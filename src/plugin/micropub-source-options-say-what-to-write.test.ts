// The endpoint's `sources` option: each mistake is one line naming the option and what to write.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEndpointOptions } from "./options.ts";

const env = { BLOG_TOKEN: "secret" };
const blog = {
  type: "micropub",
  name: "blog",
  endpoint: "https://blog.example/micropub",
  tokenEnv: "BLOG_TOKEN",
};

function problems(sources: unknown, environment: NodeJS.ProcessEnv = env): string[] {
  try {
    parseEndpointOptions({ sources }, environment);
  } catch (error) {
    return (error as Error).message.split("\n");
  }
  return [];
}

describe("the sources option", () => {
  it("none by default; a source takes the documented defaults", () => {
    assert.deepEqual(parseEndpointOptions({}, {}).sources, []);
    assert.deepEqual(parseEndpointOptions({ sources: [blog] }, env).sources, [
      { ...blog, pollSeconds: 300, recentPosts: 200 },
    ]);
    const defaults = parseEndpointOptions(
      { sources: [{ type: "micropub", name: "blog", endpoint: "https://blog.example/micropub" }] },
      { MICROPUB_TOKEN: "t" },
    );
    assert.equal(defaults.sources[0]?.tokenEnv, "MICROPUB_TOKEN");
  });

  it("one line per mistake, naming the option and what to write", () => {
    assert.deepEqual(
      problems([
        { ...blog, type: "rss" },
        { ...blog, name: "My Blog", endpoint: "http://blog.example/micropub", pollSeconds: 5 },
      ]),
      [
        'endpoint-syndicate: option "sources.0.type" must be "micropub", the only kind of source so far',
        'endpoint-syndicate: option "sources.1.name" must be a short name of lowercase letters, digits and "-", such as "blog"',
        'endpoint-syndicate: option "sources.1.endpoint" must be an absolute https URL',
        'endpoint-syndicate: option "sources.1.pollSeconds" must be a whole number from 30 to 86400, such as 300 (the default)',
      ],
    );
    assert.deepEqual(problems([{ ...blog, token: "x" }]), [
      'endpoint-syndicate: option "sources.0" has unknown option token; a Micropub source takes type, name, endpoint, tokenEnv, pollSeconds and recentPosts',
    ]);
    assert.deepEqual(problems({ blog }), [
      'endpoint-syndicate: option "sources" must be a list, such as [{ type: "micropub", name: "blog", endpoint: "https://blog.example/micropub" }]',
    ]);
  });

  it("a token variable not set, and two sources of one name, are refused at start", () => {
    assert.deepEqual(problems([blog, { ...blog, tokenEnv: "OTHER_TOKEN" }]), [
      'endpoint-syndicate: option "sources.1.name" "blog" names another source already; give each its own name',
      'endpoint-syndicate: option "sources.1.tokenEnv" names OTHER_TOKEN, which is not set: set it to a token https://blog.example/micropub issued with the scopes create and update',
    ]);
    assert.deepEqual(problems([blog], { BLOG_TOKEN: "  " }).length, 1);
  });
});
