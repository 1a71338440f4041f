// Decision 0017: what an attack pass sent to the Micropub endpoint. Form fields named after
// Object.prototype's members answered 500; a JSON create or update stored nulls; an mf2 item nested
// 1,500 deep overflowed the stack (500). Each is now an ordinary property or a 400 that says why.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { errorOf, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

/**
 * An h-entry whose author is an h-card nested `depth` items deep, as JSON text: written out by hand,
 * because JSON.stringify itself overflows the stack at these depths.
 */
function nestedEntry(depth: number): string {
  const open = '{"type":["h-card"],"properties":{"author":[';
  const innermost = '{"type":["h-card"],"properties":{"name":["innermost"]}}';
  const item = `${open.repeat(depth - 1)}${innermost}${"]}}".repeat(depth - 1)}`;
  return `{"type":["h-entry"],"properties":{"content":["Hi"],"author":[${item}]}}`;
}

for (const engine of engines) {
  describe(`Micropub: prototype-named fields, nulls and deep nesting (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    const created = async (response: Response) => {
      assert.equal(response.status, 201, await response.clone().text());
      const url = response.headers.get("location");
      assert.ok(url);
      return url;
    };

    const postJsonText = (body: string) =>
      fetch(mp.endpoint, {
        method: "POST",
        headers: {
          authorization: `Bearer ${mp.token}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body,
      });

    it("201 form fields named constructor, toString, valueOf and hasOwnProperty are ordinary properties", async () => {
      const url = await created(
        await mp.postForm(
          "h=entry&content=Hi&constructor=a&toString=b&valueOf=c&hasOwnProperty=d&category[]=toString",
        ),
      );
      const properties = await mp.source(url);
      assert.deepEqual(properties.constructor, ["a"]);
      assert.deepEqual(properties.toString, ["b"]);
      assert.deepEqual(properties.valueOf, ["c"]);
      assert.deepEqual(properties.hasOwnProperty, ["d"]);
      assert.deepEqual(properties.category, ["toString"]);
    });

    it("201 the same names as list fields (toString[]=…) and in JSON", async () => {
      const form = await created(
        await mp.postForm("h=entry&content=Hi&toString[]=x&valueOf[]=y&constructor[]=z"),
      );
      assert.deepEqual((await mp.source(form)).toString, ["x"]);
      const json = await created(
        await mp.postJson({
          type: ["h-entry"],
          properties: { content: ["Hi"], constructor: ["a"], toString: ["b"], valueOf: ["c"] },
        }),
      );
      const properties = await mp.source(json);
      assert.deepEqual(
        [properties.constructor, properties.toString, properties.valueOf],
        [["a"], ["b"], ["c"]],
      );
    });

    it("201 form fields named __proto__ are dropped, and a constructor[prototype] field is refused", async () => {
      // The form parser drops __proto__ fields itself: the post is made without them.
      for (const body of ["__proto__=x", "__proto__[]=x", "__proto__[polluted]=yes"]) {
        const url = await created(await mp.postForm(`h=entry&content=Hi&${body}`));
        const properties = await mp.source(url);
        assert.deepEqual(
          Object.keys(properties).sort(),
          ["content", "post-status", "published", "url"],
          body,
        );
      }
      const error = await errorOf(
        await mp.postForm("h=entry&content=Hi&constructor[prototype][polluted]=yes"),
      );
      assert.equal(error.status, 400);
      assert.equal(error.error, "invalid_request");
      assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype is untouched");
    });

    it("400 a JSON __proto__ property is not a property name", async () => {
      const response = await postJsonText(
        '{"type":["h-entry"],"properties":{"content":["Hi"],"__proto__":["x"]}}',
      );
      const error = await errorOf(response);
      assert.equal(error.status, 400);
      assert.match(error.description, /__proto__/);
    });

    it("400 a JSON create with a null value names the property", async () => {
      for (const properties of [
        { content: ["Hi"], category: [null] },
        { content: ["Hi"], category: null },
        { content: ["Hi"], photo: [{ value: "https://example.org/a.jpg", alt: null }], category: ["a"] },
      ]) {
        const error = await errorOf(await mp.postJson({ type: ["h-entry"], properties }));
        assert.equal(error.status, 400, JSON.stringify(properties));
        assert.equal(error.error, "invalid_request");
        assert.match(error.description, /null/);
        assert.match(
          error.description,
          properties.category === null ||
            (Array.isArray(properties.category) && properties.category[0] === null)
            ? /category/
            : /photo/,
        );
      }
    });

    it("400 a JSON update with a null value names the property and stores nothing", async () => {
      const url = await mp.create({ content: ["Kept"], category: ["one"] });
      for (const change of [
        { replace: { content: [null] } },
        { add: { category: [null] } },
        { delete: { category: [null] } },
        { replace: { content: ["New"] }, add: { category: [{ html: null }] } },
      ]) {
        const error = await errorOf(await mp.postJson({ action: "update", url, ...change }));
        assert.equal(error.status, 400, JSON.stringify(change));
        assert.equal(error.error, "invalid_request");
        assert.match(error.description, /null/);
        assert.match(error.description, /content|category/);
      }
      const properties = await mp.source(url);
      assert.deepEqual(properties.content, ["Kept"]);
      assert.deepEqual(properties.category, ["one"]);
    });

    it("400 an mf2 item nested 1,500 deep says how deep is allowed", async () => {
      for (const depth of [1_500, 12]) {
        const error = await errorOf(await postJsonText(nestedEntry(depth)));
        assert.equal(error.status, 400, `${depth} deep`);
        assert.equal(error.error, "invalid_request");
        assert.match(error.description, /nested deeper than 32 levels/);
      }
      // An author h-card in an org h-card in another is still far inside the limit.
      const url = await created(await postJsonText(nestedEntry(5)));
      const [author] = (await mp.source(url)).author ?? [];
      assert.deepEqual((author as { type?: unknown } | undefined)?.type, ["h-card"]);
    });

    it("400 a deeply nested JSON update says how deep is allowed", async () => {
      const url = await mp.create({ content: ["Hi"] });
      const value = `${"[".repeat(2_000)}"x"${"]".repeat(2_000)}`;
      const error = await errorOf(
        await postJsonText(`{"action":"update","url":${JSON.stringify(url)},"add":{"category":[${value}]}}`),
      );
      assert.equal(error.status, 400);
      assert.match(error.description, /nested deeper than 32/);
    });
  });
}
