// Without a database, what configuration alone knows is still answered (a client asks q=config
// and q=syndicate-to on start); what needs posts answers 501, as the syndication endpoint does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { errorOf } from "./micropub-server.ts";

describe("Micropub without a database", () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
    token = await server.token("create update delete");
  });
  after(() => server.close());

  const get = (query: string) =>
    fetch(`${server.url}/micropub?${query}`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });

  for (const query of ["q=config", "q=syndicate-to", "q=post-types"]) {
    it(`answers ${query} from the configuration`, async () => {
      const response = await get(query);
      assert.equal(response.status, 200);
      assert.equal(typeof (await response.json()), "object");
    });
  }

  for (const query of ["q=source", "q=category"]) {
    it(`answers ${query} 501, saying a database is needed`, async () => {
      const error = await errorOf(await get(query));
      assert.equal(error.status, 501);
      assert.equal(error.error, "not_implemented");
      assert.match(error.description, /database/);
    });
  }

  it("answers a create 501, saying a database is needed", async () => {
    const response = await fetch(`${server.url}/micropub`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: "h=entry&content=hello",
    });
    const error = await errorOf(response);
    assert.equal(error.status, 501);
    assert.match(error.description, /database/);
  });
});
