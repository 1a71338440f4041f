// GET {mountPath}/targets lists every configured target with what is known of it; "Check now"
// (POST {mountPath}/targets/check) asks each target without posting anything. A run's first 401
// marks the target refused (since then), and the page shows a banner naming the setting to fix,
// until a check or a send succeeds.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeAll,
  type EndpointServer,
  startEndpointServer,
  type Target,
} from "./endpoint-server.ts";

interface TargetJson {
  uid: string;
  state: string;
  checked_at: string | null;
  ok_at: string | null;
  error: string | null;
  error_status: number | null;
  refused_since: string | null;
  setting: string | null;
}

for (const engine of engines) {
  describe(`configured targets, checked and named when refused (${engine.name})`, () => {
    let mastodon: Target | undefined;
    let micropub: FakeMicropub | undefined;
    let app: EndpointServer | undefined;
    const token = randomBytes(12).toString("hex");

    before(async () => {
      const sandbox = await startMastodonSandbox({ accessToken: token, user: "alice" });
      // The token from the environment, as the README tells users to set it.
      const syndicator = () =>
        new MastodonSyndicator({ url: sandbox.url, user: "alice" }, { MASTODON_ACCESS_TOKEN: token });
      mastodon = { sandbox, uid: syndicator().info.uid, syndicator };
      micropub = await startFakeMicropub({ token: "micropub-token" });
      const other = new MicropubSyndicator({ micropubEndpoint: micropub.url, accessToken: "micropub-token" });
      app = await startEndpointServer({
        engine,
        targets: [mastodon],
        syndicators: [other],
      });
    });
    after(async () => {
      await app?.close();
      await closeAll(mastodon, micropub);
    });

    const targets = async (): Promise<Record<string, TargetJson>> => {
      assert.ok(app);
      const response = await fetch(`${app.endpoint}/targets`, {
        headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { targets: TargetJson[] };
      return Object.fromEntries(body.targets.map((target) => [target.uid, target]));
    };
    const check = async (body: Record<string, string> = {}) => {
      assert.ok(app);
      return fetch(`${app.endpoint}/targets/check`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
        body: new URLSearchParams(body),
      });
    };
    const page = async () => {
      assert.ok(app);
      const { cookie } = await app.server.signIn();
      return (await fetch(app.endpoint, { headers: { cookie, accept: "text/html" } })).text();
    };

    it("lists every configured target, unchecked until asked; a check posts nothing", async () => {
      assert.ok(mastodon && micropub);
      const before = await targets();
      assert.deepEqual(Object.keys(before).length, 2);
      assert.equal(before[mastodon.uid]?.state, "unchecked");
      const checked = await check();
      assert.equal(checked.status, 200);
      const after = await targets();
      for (const target of Object.values(after)) {
        assert.equal(target.state, "ok", JSON.stringify(target));
        assert.ok(target.checked_at && target.ok_at);
      }
      assert.equal(mastodon.sandbox.statuses.length, 0, "a check posts no status");
      assert.equal(micropub.posts.length, 0, "a check creates no post");
      assert.ok(
        mastodon.sandbox.requests.some((request) => request.path === "/api/v1/accounts/verify_credentials"),
      );
    });

    it("a run's first 401 marks the target refused, and the page names MASTODON_ACCESS_TOKEN", async () => {
      assert.ok(app && mastodon);
      mastodon.sandbox.setAccessToken("a-token-issued-later");
      for (const content of ["one", "two"]) await app.createPost({ content, targets: [mastodon.uid] });
      const run = (await (await app.syndicate()).json()) as BatchBody;
      assert.deepEqual(
        run.results.map((result) => result.targets[0]?.status),
        ["failed", "skipped"],
      );
      assert.match(
        run.results[1]?.targets[0]?.error ?? "",
        /^Paused: .* refused the credentials .*, until a check succeeds \(fix MASTODON_ACCESS_TOKEN, then Check now/,
      );
      const refused = (await targets())[mastodon.uid];
      assert.equal(refused?.state, "refused");
      assert.equal(refused?.error_status, 401);
      assert.match(refused?.error ?? "", /401 The access token is invalid/);
      assert.equal(refused?.setting, "MASTODON_ACCESS_TOKEN");
      assert.ok(refused?.refused_since);
      const html = await page();
      assert.match(html, /class="flash flash-error target-refused"/);
      assert.match(html, /refused the credentials since[^<]*Fix MASTODON_ACCESS_TOKEN, then check it\./);

      // Still refused on a check: the refusal keeps its first moment.
      await check({ target_uid: mastodon.uid });
      const still = (await targets())[mastodon.uid];
      assert.equal(still?.state, "refused");
      assert.equal(still?.refused_since, refused?.refused_since);
    });

    it("a check that succeeds (a form, without JavaScript) ends the refusal and the banner", async () => {
      assert.ok(app && mastodon);
      mastodon.sandbox.setAccessToken(token);
      const { cookie, csrf } = await app.server.signIn();
      const response = await fetch(`${app.endpoint}/targets/check`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf }),
      });
      assert.equal(response.status, 303);
      assert.equal((await targets())[mastodon.uid]?.state, "ok");
      assert.doesNotMatch(await page(), /target-refused/);
    });

    it("a send that succeeds ends a refusal too", async () => {
      assert.ok(app && mastodon);
      mastodon.sandbox.setAccessToken("revoked-again");
      await app.createPost({ content: "three", targets: [mastodon.uid] });
      await app.syndicate("/retry");
      assert.equal((await targets())[mastodon.uid]?.state, "refused");
      mastodon.sandbox.setAccessToken(token);
      const retried = (await (await app.syndicate("/retry")).json()) as BatchBody;
      assert.ok(retried.results.every((result) => result.status === "syndicated"));
      const well = (await targets())[mastodon.uid];
      assert.equal(well?.state, "ok");
      assert.equal(well?.refused_since, null);
    });

    it("refuses an unknown target, and a token without the update scope", async () => {
      assert.ok(app);
      const unknown = await check({ target_uid: "https://nowhere.example/@x" });
      assert.equal(unknown.status, 400);
      const readOnly = await app.server.token("create");
      const refused = await fetch(`${app.endpoint}/targets/check`, {
        method: "POST",
        headers: { authorization: `Bearer ${readOnly}`, accept: "application/json" },
      });
      assert.equal(refused.status, 403);
    });
  });
}
