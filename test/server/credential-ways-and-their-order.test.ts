// Authentication (decision 0002, spec §5): the session cookie, Authorization: Bearer, the form field
// access_token and the query parameter token are accepted, in that order: the first one present decides.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

interface Answer {
  status: number;
  auth: { method: string; scope: string[]; clientId: string; me: string; credentialId?: string } | null;
  body: Record<string, unknown> | null;
}

async function whoami(
  server: TestServer,
  options: { query?: string; headers?: Record<string, string>; form?: Record<string, string> } = {},
): Promise<Answer> {
  const url = `${server.url}/test-mount/whoami${options.query ? `?${options.query}` : ""}`;
  const response = await fetch(url, {
    method: options.form ? "POST" : "GET",
    headers: {
      ...(options.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      ...options.headers,
    },
    ...(options.form ? { body: new URLSearchParams(options.form) } : {}),
  });
  const json = await response.json();
  return { status: response.status, auth: json.auth ?? null, body: json.body ?? null };
}

for (const engine of engines) {
  describe(`the four ways to authenticate, on ${engine.name}`, () => {
    let server: TestServer;
    // Tokens that differ in scope, so that the answer shows which one was used.
    let createToken: string;
    let updateToken: string;
    let mediaToken: string;
    before(async () => {
      server = await startTestServer({ engine, config: { plugins: [] }, plugins: [new TestPlugin()] });
      createToken = await server.token("create");
      updateToken = await server.token("update");
      mediaToken = await server.token("media");
    });
    after(() => server.close());

    it("accepts the session cookie", async () => {
      const { cookie } = await server.signIn();
      const answer = await whoami(server, { headers: { cookie } });
      assert.equal(answer.status, 200);
      assert.equal(answer.auth?.method, "session");
      assert.equal(answer.auth?.me, server.host.publication.me);
    });

    it("accepts Authorization: Bearer, with the token's scope and client_id", async () => {
      const answer = await whoami(server, { headers: { authorization: `Bearer ${createToken}` } });
      assert.equal(answer.status, 200);
      assert.ok(answer.auth);
      const { credentialId, ...auth } = answer.auth;
      assert.deepEqual(auth, {
        method: "bearer",
        me: server.host.publication.me,
        scope: ["create"],
        clientId: "test",
      });
      assert.match(String(credentialId), /^token:[\w-]{16,}$/, "rate limits count per token id");
    });

    it("accepts the form field access_token, and keeps it from the handler's body", async () => {
      const answer = await whoami(server, { form: { access_token: createToken, content: "hello" } });
      assert.equal(answer.status, 200);
      assert.equal(answer.auth?.method, "form");
      assert.deepEqual(answer.body, { content: "hello" });
    });

    it("accepts the query parameter token", async () => {
      const answer = await whoami(server, { query: `token=${encodeURIComponent(createToken)}` });
      assert.equal(answer.status, 200);
      assert.equal(answer.auth?.method, "query");
      assert.deepEqual(answer.auth?.scope, ["create"]);
    });

    it("takes the session cookie before a bearer token", async () => {
      const { cookie } = await server.signIn();
      const answer = await whoami(server, { headers: { cookie, authorization: `Bearer ${createToken}` } });
      assert.equal(answer.auth?.method, "session");
      for (const authorization of ["Bearer not-a-token", "Bearer two tokens", "Bearer"]) {
        const beside = await whoami(server, { headers: { cookie, authorization } });
        assert.equal(beside.status, 200, authorization);
        assert.equal(beside.auth?.method, "session", authorization);
      }
    });

    it("takes the bearer token before the query parameter", async () => {
      const answer = await whoami(server, {
        headers: { authorization: `Bearer ${createToken}` },
        query: `token=${mediaToken}`,
      });
      assert.equal(answer.status, 200);
      assert.equal(answer.auth?.method, "bearer");
      assert.deepEqual(answer.auth?.scope, ["create"]);
    });

    it("refuses a bearer token together with the form field access_token with 400 (RFC 6750 §2: one way)", async () => {
      const answer = await whoami(server, {
        headers: { authorization: `Bearer ${createToken}` },
        form: { access_token: updateToken },
      });
      assert.equal(answer.status, 400);
    });

    it("takes the form field before the query parameter", async () => {
      const answer = await whoami(server, {
        form: { access_token: updateToken },
        query: `token=${mediaToken}`,
      });
      assert.equal(answer.auth?.method, "form");
      assert.deepEqual(answer.auth?.scope, ["update"]);
    });

    it("decides by the first credential present: an invalid bearer token is refused even with a valid query token", async () => {
      const answer = await whoami(server, {
        headers: { authorization: "Bearer not-a-token" },
        query: `token=${createToken}`,
      });
      assert.equal(answer.status, 401);
    });

    it("refuses a malformed Bearer header with 401, never falling back to a valid query token", async () => {
      for (const authorization of ["Bearer", "Bearer ", "Bearer two tokens", `Bearer ${createToken} extra`]) {
        const answer = await whoami(server, {
          headers: { authorization },
          query: `token=${encodeURIComponent(createToken)}`,
        });
        assert.equal(answer.status, 401, JSON.stringify(authorization));
        assert.equal(answer.auth, null, JSON.stringify(authorization));
      }
    });

    it("ignores an Authorization header of another scheme (a proxy's Basic auth), for sessions and tokens alike", async () => {
      const basic = `Basic ${Buffer.from("proxy:secret").toString("base64")}`;
      const { cookie } = await server.signIn();
      const session = await whoami(server, { headers: { cookie, authorization: basic } });
      assert.equal(session.status, 200);
      assert.equal(session.auth?.method, "session");
      const query = await whoami(server, {
        headers: { authorization: basic },
        query: `token=${createToken}`,
      });
      assert.equal(query.status, 200);
      assert.equal(query.auth?.method, "query");
      const none = await whoami(server, { headers: { authorization: basic } });
      assert.equal(none.status, 401);
    });
  });
}
