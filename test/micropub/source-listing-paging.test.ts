// q=source without url: the newest posts, page by page, with an opaque cursor.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { errorOf, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

interface Page {
  items: { type: string[]; properties: Record<string, unknown[]> }[];
  paging: { after?: string; before?: string };
}

for (const engine of engines) {
  describe(`Micropub source listing (${engine.name})`, () => {
    let mp: MicropubServer;
    const newestFirst: string[] = [];
    before(async () => {
      mp = await startMicropubServer(engine);
      for (let day = 1; day <= 5; day++) {
        const url = await mp.create({ content: [`Day ${day}`], published: [`2024-01-0${day}T12:00:00Z`] });
        newestFirst.unshift(url);
      }
    });
    after(() => mp.close());

    const page = async (params: string): Promise<Page> => {
      const response = await mp.query(`q=source&${params}`);
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as Page;
    };
    const urls = (of: Page) => of.items.map((item) => item.properties.url?.[0]);

    it("lists posts newest first, limit at a time, with paging.after for the next page", async () => {
      const first = await page("limit=2");
      assert.deepEqual(urls(first), newestFirst.slice(0, 2));
      assert.deepEqual(first.items[0]?.type, ["h-entry"]);
      assert.equal(first.paging.before, undefined);
      assert.ok(first.paging.after);
      const second = await page(`limit=2&after=${encodeURIComponent(first.paging.after)}`);
      assert.deepEqual(urls(second), newestFirst.slice(2, 4));
      assert.ok(second.paging.after);
      const last = await page(`limit=2&after=${encodeURIComponent(second.paging.after)}`);
      assert.deepEqual(urls(last), newestFirst.slice(4));
      assert.equal(last.paging.after, undefined);
    });

    it("pages back with paging.before", async () => {
      const first = await page("limit=2");
      assert.ok(first.paging.after);
      const second = await page(`limit=2&after=${encodeURIComponent(first.paging.after)}`);
      assert.ok(second.paging.before);
      const back = await page(`limit=2&before=${encodeURIComponent(second.paging.before)}`);
      assert.deepEqual(urls(back), newestFirst.slice(0, 2));
    });

    it("lists only the properties asked for", async () => {
      const only = await page("limit=1&properties%5B%5D=content");
      assert.deepEqual(only.items, [{ properties: { content: ["Day 5"] } }]);
    });

    it("answers 400 invalid_request for a bad limit or a cursor it did not hand out", async () => {
      for (const params of [
        "q=source&limit=0",
        "q=source&limit=abc",
        "q=source&limit=1000",
        "q=source&after=forged",
      ]) {
        const error = await errorOf(await mp.query(params));
        assert.equal(error.status, 400, params);
        assert.equal(error.error, "invalid_request");
      }
    });
  });
}
