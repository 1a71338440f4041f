// What a notification must never carry: a credential the service's error echoed. Each shape of
// secret is hidden, and the rest of the error (a URL, a status) is kept so that it still says why.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withoutSecrets } from "./notifier.ts";

const LONG = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8";

describe("a notification's error text", () => {
  it("hides every shape of secret a service's error may echo", () => {
    const cases: Array<[string, string]> = [
      ["Authorization: Bearer abc.def", "Authorization: Bearer [hidden]"],
      ["basic dXNlcjpwYXNz failed", "basic [hidden] failed"],
      ["bearer   spaced-out", "bearer [hidden]"],
      ["422 (access_token=abc123&x=1)", "422 (access_token=[hidden]&x=1)"],
      ['{"secret": "s3cr3t", "ok": 1}', '{"secret": "[hidden]", "ok": 1}'],
      ["password:hunter2; token = t0k", "password:[hidden]; token = [hidden]"],
      ["API_KEY=k, apikey: v", "API_KEY=[hidden], apikey: [hidden]"],
      [`id ${LONG} refused`, "id [hidden] refused"],
    ];
    for (const [error, hidden] of cases) assert.equal(withoutSecrets(error), hidden, error);
  });

  it("keeps what is no secret: a URL, short words, the status", () => {
    const url = "https://social.example/@me";
    assert.equal(withoutSecrets(`${url} answered 503`), `${url} answered 503`);
    assert.equal(
      withoutSecrets("Social: 401 The access token is invalid"),
      "Social: 401 The access token is invalid",
    );
    assert.equal(withoutSecrets(`a ${"b".repeat(31)} c`), `a ${"b".repeat(31)} c`);
    // A long URL stays whole (a Reconnect link, a post's address): its parts are not one long run.
    const long = "https://social.example/syndicate/accounts?reconnect=acc-1234#accounts-mastodon";
    assert.equal(withoutSecrets(`Reconnect: ${long}`), `Reconnect: ${long}`);
  });

  it("hides a long token inside a URL, keeping the rest of it", () => {
    assert.equal(
      withoutSecrets(`POST https://hooks.example/services/${LONG}/x answered 404`),
      "POST https://hooks.example/services/[hidden]/x answered 404",
    );
  });
});
