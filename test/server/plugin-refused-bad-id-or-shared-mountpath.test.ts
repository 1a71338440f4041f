// Plug-in contract (spec §2.4): ids are kebab-case and every endpoint has a mountPath of its own;
// the host refuses to start otherwise, saying which plug-in is wrong.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Plugin } from "../../src/contract/plugin.ts";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { configFolder, startHostFrom } from "./start-host.ts";

const folder = configFolder(() => ({ plugins: [], application: { port: 0, database: false } }));
after(() => folder.remove());

async function refusal(plugins: Plugin[]): Promise<Error> {
  try {
    const started = await startHostFrom(folder, { plugins });
    await started.close();
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail("the host started");
}

describe("plug-ins the host refuses", () => {
  for (const id of ["TestPlugin", "test_plugin", "test plugin", "-test", "test-", "test--plugin", ""]) {
    it(`refuses the id ${JSON.stringify(id)}, which is not kebab-case`, async () => {
      const error = await refusal([new TestPlugin({ id })]);
      assert.match(error.message, /kebab-case/);
      assert.ok(error.message.includes(`"${id}"`), error.message);
    });
  }

  it("accepts kebab-case ids with digits", async () => {
    const started = await startHostFrom(folder, { plugins: [new TestPlugin({ id: "test-plugin-2" })] });
    await started.close();
  });

  it("refuses two endpoints with the same mountPath, naming both", async () => {
    const error = await refusal([
      new TestPlugin({ id: "first", mountPath: "/same" }),
      new TestPlugin({ id: "second", mountPath: "/same" }),
    ]);
    assert.match(error.message, /"first"/);
    assert.match(error.message, /"second"/);
    assert.match(error.message, /\/same/);
  });

  for (const other of ["/same/", "/Same"]) {
    it(`refuses "/same" and "${other}", which answer the same requests`, async () => {
      const error = await refusal([
        new TestPlugin({ id: "first", mountPath: "/same" }),
        new TestPlugin({ id: "second", mountPath: other }),
      ]);
      assert.match(error.message, /share the mountPath/);
    });
  }

  it("refuses a mountPath that is not a path", async () => {
    const error = await refusal([new TestPlugin({ id: "relative", mountPath: "relative" })]);
    assert.match(error.message, /"relative": mountPath must be a path starting with "\/"/);
  });
});
