// Load: 200 concurrent clients for 30 s against one server process — half reading the Syndicate page
// (signed-in session, GET {mountPath}), half asking the endpoint to syndicate a post (POST
// {mountPath}?source_url=… with a token). Every answer must be a success or a 429; p50 and p99 are
// printed. LOAD_SECONDS and LOAD_CLIENTS change the duration and the number of clients.
import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { after, before, describe, it } from "node:test";
import type { ChildServer } from "../helpers/child-server.ts";
import {
  type BatchBody,
  createPosts,
  type Sandbox,
  singleInstanceDatabase,
  startCluster,
  startSandbox,
  stopAll,
  syndicate,
} from "./cluster.ts";

const SECONDS = Number(process.env.LOAD_SECONDS ?? 30);
const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 200);
const MOUNT_PATH = "/syndicate";
const POSTS = 20;

interface Sample {
  kind: "page" | "endpoint";
  ms: number;
  status?: number;
  error?: string;
}

function timed(
  agent: Agent,
  url: URL,
  options: { method: string; path: string; headers: Record<string, string> },
): Promise<{ ms: number; status?: number; error?: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, agent, timeout: 60_000, ...options }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0 }));
      res.on("error", (error) => resolve({ ms: performance.now() - started, error: error.message }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 60 s")));
    req.on("error", (error) => resolve({ ms: performance.now() - started, error: error.message }));
    req.end();
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))] as number;
}

describe(`${CLIENTS} concurrent clients for ${SECONDS} s`, () => {
  let database: Awaited<ReturnType<typeof singleInstanceDatabase>> | undefined;
  let sandbox: Sandbox | undefined;
  let server: ChildServer | undefined;
  let posts: string[] = [];
  let token = "";
  let cookie = "";

  before(async () => {
    database = await singleInstanceDatabase();
    sandbox = await startSandbox();
    [server] = await startCluster({
      count: 1,
      // As deployed: production caches the page templates (and requires SECRET and PASSWORD, set).
      env: { ...database.env, NODE_ENV: "production" },
      sandbox,
      // Limits high enough that the figures are of the work, not of refusals.
      config: { application: { rateLimit: { authenticated: 100_000_000, signIn: 1_000 } } },
    });
    if (!server) throw new Error("No server started");
    token = await server.token("create update");
    ({ cookie } = await server.signIn());
    posts = await createPosts(server, token, POSTS, [sandbox.uid], "Load");
    // Syndicated once, so that the load measures the endpoint's own work, not Mastodon's.
    const first = await syndicate(server, token);
    assert.equal(((await first.json()) as BatchBody).summary.syndicated, POSTS);
  });

  after(() => stopAll(server ? [server] : [], sandbox, database));

  // The run itself, then the answers still on their way (each may take up to 60 s).
  const timeout = SECONDS * 1000 + 120_000;
  it("answers the Syndicate page and the endpoint with no error beyond 429", { timeout }, async () => {
    const url = new URL((server as ChildServer).url);
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const samples: Sample[] = [];
    const deadline = performance.now() + SECONDS * 1000;

    const client = async (number: number) => {
      for (let i = 0; performance.now() < deadline; i += 1) {
        if (number % 2 === 0) {
          const outcome = await timed(agent, url, {
            method: "GET",
            path: MOUNT_PATH,
            headers: { cookie, accept: "text/html" },
          });
          samples.push({ kind: "page", ...outcome });
        } else {
          const post = posts[(number + i) % posts.length] as string;
          const outcome = await timed(agent, url, {
            method: "POST",
            path: `${MOUNT_PATH}?source_url=${encodeURIComponent(post)}`,
            headers: { authorization: `Bearer ${token}`, accept: "application/json" },
          });
          samples.push({ kind: "endpoint", ...outcome });
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, number) => client(number)));
    agent.destroy();

    const errors: string[] = [];
    for (const kind of ["page", "endpoint"] as const) {
      const ofKind = samples.filter((sample) => sample.kind === kind);
      const latencies = ofKind.map((sample) => sample.ms).sort((a, b) => a - b);
      const statuses = new Map<string, number>();
      for (const sample of ofKind) {
        const key = sample.error ? "error" : String(sample.status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if ((sample.error || (sample.status !== 200 && sample.status !== 429)) && errors.length < 10)
          errors.push(`${kind}: ${sample.error ?? sample.status}`);
      }
      const histogram = [...statuses.entries()].map(([status, count]) => `${status}:${count}`).join(" ");
      console.log(
        `# load ${kind}: ${ofKind.length} requests (${(ofKind.length / SECONDS).toFixed(0)}/s), ` +
          `p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms, ` +
          `max ${(latencies.at(-1) ?? 0).toFixed(1)} ms; statuses ${histogram}`,
      );
      assert.ok(ofKind.length >= CLIENTS / 2, `every ${kind} client was answered at least once`);
    }
    console.log(`# load: ${CLIENTS} clients, ${SECONDS} s, ${database?.engine}`);
    assert.deepEqual(errors, [], "answers other than 200 and 429");

    // Nothing was sent again: each post is still on Mastodon once.
    assert.equal((sandbox as Sandbox).mastodon.statuses.length, POSTS);
  });
});
