// Decision 0014, attention: /health reports the scheduler (state, next due moment, last run, posts
// needing the user), and the Syndicate navigation item carries an accessible count of the posts
// that need the user — here one refused for good by its target — which a retry in backoff is not.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
  until,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { healthOf } from "../helpers/health.ts";
import { ServerClock } from "./scheduled-server.ts";

/** The default backoff of a first failure: 2^1 × one minute. */
const FIRST_BACKOFF_MS = 120_000;

interface Health {
  status: string;
  "endpoint-syndicate": {
    scheduler: { state: string; next_due_at: string | null; last_run: { summary?: unknown } | null };
    posts_needing_user: number;
  };
}

const sends = (target: Target | undefined) =>
  target?.sandbox.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/statuses").length ?? 0;

const health = async (app: EndpointServer) => (await healthOf(app.server)) as Health;

for (const engine of engines) {
  describe(`/health and the navigation badge (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    // Nobody moves the clock: the 503 stays in backoff for the whole test.
    const clock = new ServerClock();
    before(async () => {
      target = await startTarget();
      app = await startEndpointServer({
        engine,
        targets: [target],
        pluginOptions: { schedule: { enabled: true, whenLive: false } },
        clock,
      });
    });
    after(async () => {
      await app?.close();
      await closeAll(target);
    });

    it("reports a running scheduler with nothing due and no badge at first", async () => {
      assert.ok(app);
      const first = await health(app);
      assert.equal(first.status, "ok");
      assert.equal(first["endpoint-syndicate"].scheduler.state, "running");
      assert.equal(first["endpoint-syndicate"].scheduler.next_due_at, null);
      assert.equal(first["endpoint-syndicate"].posts_needing_user, 0);
      const { cookie } = await app.server.signIn();
      const page = await (
        await fetch(`${app.url}/status`, { headers: { cookie, accept: "text/html" } })
      ).text();
      assert.doesNotMatch(page, /nav-badge/);
    });

    it("counts a refused post, not one waiting for its retry, in /health and the badge", async () => {
      assert.ok(app && target);
      target.sandbox.setBehaviour({ status: 503, error: "Down for maintenance", times: 1 });
      await app.createPost({ content: "retried in two minutes", targets: [target.uid] });
      await until("the 503 was recorded", () => sends(target) === 1);
      let report = await eventually("/health tells the run's summary", async () => {
        const now = await health(app as EndpointServer);
        return now["endpoint-syndicate"].scheduler.last_run?.summary === undefined ? undefined : now;
      });
      const due = report["endpoint-syndicate"].scheduler.next_due_at;
      assert.equal(
        due && Date.parse(due),
        clock.now() + FIRST_BACKOFF_MS,
        `the retry is due when its backoff ends: ${due}`,
      );
      assert.equal(report["endpoint-syndicate"].posts_needing_user, 0, "a retry in backoff needs nobody");

      target.sandbox.setBehaviour({ status: 422, error: "Text is too long" });
      await app.createPost({ content: "refused for good", targets: [target.uid] });
      await until("the refusal was recorded", () => sends(target) === 2);
      report = await eventually("/health counts the refused post", async () => {
        const now = await health(app as EndpointServer);
        return now["endpoint-syndicate"].posts_needing_user === 0 ? undefined : now;
      });
      assert.equal(report["endpoint-syndicate"].posts_needing_user, 1);

      const { cookie } = await app.server.signIn();
      for (const [language, words] of [
        ["en", "1 post needs you"],
        ["de", "1 Beitrag braucht dich"],
        ["fr", "1 article a besoin de vous"],
      ]) {
        const page = await (
          await fetch(`${app.url}/status`, {
            headers: { cookie, accept: "text/html", "accept-language": language as string },
          })
        ).text();
        assert.match(
          page,
          new RegExp(
            `<span class="nav-badge"><span aria-hidden="true">1</span><span class="visually-hidden">\\(${words}\\)</span></span>`,
          ),
          language,
        );
      }
    });
  });
}
