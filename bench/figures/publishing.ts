// Figure (decision 0032): publishing through the git store. The time of a Micropub create until its
// commit is pushed to a local bare repository (the request answers only after the push), beside a
// create with the pages store, the embedded default; and the write-back of a 100-post batch run:
// how many commits it makes (goal one) and its wall time.
import { performance } from "node:perf_hooks";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { startGitRemote } from "../../test/publishing/git-remote.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { count, distribution, ms, seconds } from "../lib/stats.ts";

const CREATE_GOAL_MS = 300;

async function server(publication: Record<string, unknown>, sandbox: MastodonSandbox): Promise<TestServer> {
  return startTestServer({
    config: { publication, plugins: ["@possekit/endpoint-syndicate"] },
    plugins: [new MastodonSyndicator({ url: sandbox.url, user: "bench", accessToken: "bench-token" })],
  });
}

async function create(app: TestServer, token: string, n: number, targets: string[]): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${app.url}/micropub`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      type: ["h-entry"],
      properties: { content: [`Bench post ${n}`], "mp-slug": [`bench-${n}`], "mp-syndicate-to": targets },
    }),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`Micropub create answered ${response.status}`);
  return performance.now() - started;
}

export async function publishing(context: BenchContext): Promise<FigureSection> {
  const creates = context.quick ? 20 : 100;
  const batch = context.quick ? 20 : 100;
  const sandbox = await startMastodonSandbox({ accessToken: "bench-token", user: "bench", name: "Bench" });
  const uid = new MastodonSyndicator({ url: sandbox.url, user: "bench", accessToken: "bench-token" }).info
    .uid;
  const rows: FigureRow[] = [];
  const data: Record<string, unknown> = {};
  try {
    // The create latency, pages store (nothing to write) and git store (commit and push).
    for (const kind of ["pages", "git"] as const) {
      const remote = kind === "git" ? startGitRemote() : undefined;
      const app = await server(
        remote ? { store: { type: "git", url: remote.url }, preset: "hugo" } : {},
        sandbox,
      );
      try {
        const token = await app.token("create");
        await create(app, token, 0, []); // warm-up: the working copy is cloned by the first change
        const samples: number[] = [];
        context.log(`publishing: ${count(creates)} Micropub creates with the ${kind} store`);
        for (let n = 1; n <= creates; n++) samples.push(await create(app, token, n, []));
        const d = distribution(samples);
        data[`create-${kind}`] = d;
        const pushed = remote ? remote.log().length - 1 : 0;
        rows.push({
          figure:
            kind === "git"
              ? "Micropub create → commit pushed (median / p99)"
              : "Micropub create, pages store (median / p99)",
          engine: "PGlite",
          measured: `${ms(d.median)} / ${ms(d.p99)}`,
          value: d.p99,
          unit: "ms",
          goal: kind === "git" ? `≤ ${CREATE_GOAL_MS} ms` : "-",
          verdict: kind === "git" ? (d.p99 <= CREATE_GOAL_MS ? "PASS" : "MISS") : "INFO",
          note:
            kind === "git"
              ? `${count(creates)} creates, each answered after its commit was pushed to a bare repository on disk (${count(pushed)} commits on the remote)`
              : `${count(creates)} creates; the post is live at its URL when the request answers`,
        });
      } finally {
        await app.close();
        remote?.close();
      }
    }

    // The write-back of one batch run.
    const remote = startGitRemote();
    const app = await server({ store: { type: "git", url: remote.url }, preset: "hugo" }, sandbox);
    try {
      const token = await app.token("create update");
      context.log(`publishing: a batch of ${count(batch)} posts written back`);
      for (let n = 1; n <= batch; n++) await create(app, token, n, [uid]);
      const before = remote.log().length;
      const started = performance.now();
      const response = await fetch(`${app.url}/syndicate`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          "content-type": "application/json",
        },
        body: "{}",
      });
      const body = (await response.json()) as { summary: { syndicated: number } };
      const wallMs = performance.now() - started;
      const commits = remote.log().length - before;
      data.writeBack = { posts: batch, syndicated: body.summary.syndicated, commits, wallMs };
      rows.push({
        figure: `Write-back of a ${count(batch)}-post batch: commits`,
        engine: "PGlite",
        measured: count(commits),
        value: commits,
        unit: "commits",
        goal: "1",
        verdict: commits === 1 && body.summary.syndicated === batch ? "PASS" : "MISS",
        note: `${count(body.summary.syndicated)} posts syndicated to a sandbox Mastodon in one run`,
      });
      rows.push({
        figure: `Write-back of a ${count(batch)}-post batch: run wall time`,
        engine: "PGlite",
        measured: seconds(wallMs),
        value: wallMs,
        unit: "ms",
        goal: "-",
        verdict: "INFO",
        note: "the whole run: each post sent, its links recorded, then one commit and one push",
      });
    } finally {
      await app.close();
      remote.close();
    }
  } finally {
    await sandbox.close();
  }
  return {
    id: "publishing",
    title: "Publishing through the git store",
    method:
      "The real server (PGlite) with the git store and the hugo preset against a bare repository on disk: " +
      "Micropub creates one after the other, each timed from request to answer (the answer comes after the " +
      "commit is pushed), beside the same with the pages store; then a batch run over posts awaiting a " +
      "sandbox Mastodon, counting the commits it adds to the remote.",
    rows,
    details: [],
    data,
  };
}
