// Decision 0054: a Micropub endpoint typed on the Feeds page (a page feed's write-back) is not
// trusted as the configuration file's is: on a private address it is asked only with
// fetch.allowPrivate, and the address is checked at every request, not only when the form was
// saved (a name may resolve elsewhere later). The file's endpoint is asked wherever it runs. Over
// real HTTP against another possekit on 127.0.0.1, which counts what reaches it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MicropubClient } from "../../src/sources/micropub/micropub-client.ts";
import { type Remote, startRemote } from "./remote-micropub.ts";

describe("a page-typed Micropub endpoint on a private address", () => {
  let remote: Remote;
  before(async () => {
    remote = await startRemote();
  });
  after(() => remote?.close());

  const client = (trustEndpoint: boolean | undefined, allowPrivate: boolean) =>
    new MicropubClient({
      endpoint: remote.endpoint,
      token: () => remote.token,
      tokenSetting: "this feed's token field on the Feeds page",
      fetchPolicy: allowPrivate ? { allowPrivate: true } : {},
      ...(trustEndpoint !== undefined ? { trustEndpoint } : {}),
    });

  it("is refused without fetch.allowPrivate, and nothing reaches it", async () => {
    await assert.rejects(client(false, false).listPage({ limit: 1 }), /private|local/i);
    assert.equal(remote.gate.passed.length, 0);
  });

  it("is asked with fetch.allowPrivate; the file's endpoint is asked either way", async () => {
    await client(false, true).listPage({ limit: 1 });
    await client(undefined, false).listPage({ limit: 1 });
    assert.equal(remote.gate.passed.length, 2);
  });
});
