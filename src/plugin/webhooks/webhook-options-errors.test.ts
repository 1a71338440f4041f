import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { formatIssues, OptionsError } from "../../contract/options/options-error.ts";
import { parseEndpointOptions } from "../options.ts";
import { webhookOptionsSchema } from "./options.ts";

/** The webhook options as the endpoint reads them (the one option parser, src/contract/options). */
const parseWebhookOptions = (value: unknown) => parseEndpointOptions({ webhook: value }).webhook;

function problemsOf(value: unknown): string[] {
  try {
    parseWebhookOptions(value);
  } catch (error) {
    assert.ok(error instanceof OptionsError);
    assert.match(error.message, /^endpoint-syndicate: option "webhook/);
    return formatIssues(error.issues);
  }
  assert.fail(`${JSON.stringify(value)} should have been refused`);
}

describe("the plug-in's webhook options", () => {
  it("default to production deploys and a 100 kB body", () => {
    assert.deepEqual(parseWebhookOptions(undefined), { contexts: ["production"], maxBodyBytes: 100_000 });
    assert.deepEqual(parseWebhookOptions({}), { contexts: ["production"], maxBodyBytes: 100_000 });
  });

  it("take configured contexts and limit, trimming context names", () => {
    assert.deepEqual(
      parseWebhookOptions({ contexts: [" production", "branch-deploy"], maxBodyBytes: 250_000 }),
      {
        contexts: ["production", "branch-deploy"],
        maxBodyBytes: 250_000,
      },
    );
  });

  it("do not share the default list between parses", () => {
    const first = parseWebhookOptions({});
    first.contexts.push("deploy-preview");
    assert.deepEqual(parseWebhookOptions({}).contexts, ["production"]);
  });

  it("name the option and say what to write when contexts is wrong", () => {
    for (const contexts of ["production", [], [""], [1]]) {
      const [problem, ...rest] = problemsOf({ contexts });
      assert.equal(rest.length, 0);
      assert.match(problem ?? "", /^webhook\.contexts(\.0)?: must /);
      assert.match(problem ?? "", /Remove it to use the default \["production"\]/);
    }
  });

  it("name the option and give the range when maxBodyBytes is wrong", () => {
    for (const maxBodyBytes of ["100kB", 12.5, 10, 1e9]) {
      assert.deepEqual(problemsOf({ maxBodyBytes }), [
        "webhook.maxBodyBytes: must be a whole number of bytes from 1000 to 10000000, " +
          "such as 100000 (the default, which suits Netlify and GitHub).",
      ]);
    }
  });

  it("refuse unknown options, listing the known ones", () => {
    assert.deepEqual(problemsOf({ context: ["production"] }), [
      "webhook: has unknown option context; the webhook options are contexts and maxBodyBytes.",
    ]);
  });

  it("refuse a webhook entry that is not an object", () => {
    assert.match(problemsOf(["production"])[0] ?? "", /^webhook: must be an object/);
  });

  it("embed in the plug-in's own options schema with defaults when absent", () => {
    const pluginOptions = z.object({
      mountPath: z.string().default("/syndicate"),
      webhook: webhookOptionsSchema,
    });
    assert.deepEqual(pluginOptions.parse({}), {
      mountPath: "/syndicate",
      webhook: { contexts: ["production"], maxBodyBytes: 100_000 },
    });
  });
});
