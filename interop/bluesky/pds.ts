// The interop test's side of the real PDS: starts interop/bluesky/start-pds.mjs as a child process
// on free ports, makes accounts on it, and reads records and blobs back through plain XRPC, so that
// what the syndicator wrote is checked by the server's own answers, not by our own code.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../test/helpers/server.ts";

const folder = new URL(".", import.meta.url).pathname;

export interface RealPds {
  url: string;
  /** The in-memory PLC directory the PDS registers its accounts' DIDs in. */
  plcUrl: string;
  /** Makes an account with a .test handle and an app password for it. */
  createAccount(name: string): Promise<Account>;
  getRecord(repo: string, collection: string, rkey: string): Promise<{ uri: string; value: PostRecord }>;
  /** The account signed in afresh (its access token lives 2 hours of the PDS's clock). */
  signIn(account: Account): Promise<Account>;
  /** Posts as `account` directly on the PDS (someone else's post to like, repost or reply to). */
  createPost(account: Account, text: string): Promise<{ uri: string; cid: string; rkey: string }>;
  listRecords(repo: string, collection: string): Promise<{ uri: string; value: PostRecord }[]>;
  getBlob(did: string, cid: string): Promise<{ bytes: Buffer; type: string }>;
  /**
   * Moves the PDS's clock `ms` ahead, as if that much time had passed: access tokens it issued
   * expire (they live 2 hours), rate-limit windows end. Nothing of possekit's is touched.
   */
  advanceClock(ms: number): Promise<void>;
  /** The last lines the PDS wrote (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export interface Account {
  did: string;
  handle: string;
  appPassword: string;
  accessJwt: string;
}

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: { $type: string; uri?: string; did?: string; tag?: string }[];
}

export interface PostRecord {
  $type: string;
  text: string;
  createdAt: string;
  langs?: string[];
  subject?: { uri: string; cid: string };
  reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
  facets?: Facet[];
  embed?: {
    $type: string;
    images?: {
      alt: string;
      image: { ref: { $link: string }; mimeType: string; size: number };
      aspectRatio?: { width: number; height: number };
    }[];
    external?: { uri: string; title: string; description: string; thumb?: { ref: { $link: string } } };
  };
}

async function xrpc<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

const post = <T>(url: string, body: unknown, accessJwt?: string) =>
  xrpc<T>(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(accessJwt ? { authorization: `Bearer ${accessJwt}` } : {}),
    },
    body: JSON.stringify(body),
  });

export async function startRealPds(options: { rateLimits?: boolean } = {}): Promise<RealPds> {
  if (!existsSync(join(folder, "node_modules/@atproto/pds"))) {
    throw new Error(
      "The real PDS is not installed: run `npm install --prefix interop/bluesky --no-audit --no-fund` first",
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), "possekit-pds-"));
  const [pdsPort, plcPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, [join(folder, "start-pds.mjs")], {
    cwd: folder,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? dataDir,
      PDS_PORT: String(pdsPort),
      PLC_PORT: String(plcPort),
      PDS_DATA: dataDir,
      PDS_RATE_LIMITS: options.rateLimits ? "1" : "0",
      LOG_ENABLED: "false",
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-32 * 1024);
  };
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let lines = "";
  /** Resolves with the first line of the child's stdout (from now on) that matches `pattern`. */
  const waitForLine = (pattern: RegExp, timeoutMs: number, what: string) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${what} within ${timeoutMs / 1000} s:\n${output}`)),
        timeoutMs,
      );
      const look = () => {
        const found = pattern.exec(lines);
        if (!found) return;
        lines = lines.slice(found.index + found[0].length);
        clearTimeout(timer);
        child.stdout?.off("data", look);
        resolve(found);
      };
      child.stdout?.on("data", look);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`The PDS exited:\n${output}`));
      });
      look();
    });
  child.stdout?.on("data", (chunk: Buffer) => {
    keep(chunk);
    lines += chunk.toString("utf8");
  });
  const started = await waitForLine(/^\{"pds":"([^"]+)","plc":"([^"]+)"/m, 90_000, "The PDS did not start");
  const url = started[1] ?? "";
  const plcUrl = started[2] ?? "";

  const xrpcUrl = (nsid: string, query: Record<string, string> = {}) =>
    `${url}/xrpc/${nsid}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ""}`;

  return {
    url,
    plcUrl,
    output: () => output,
    async advanceClock(ms) {
      const answered = waitForLine(/^\{"clockAdvancedMs":-?\d+\}/m, 10_000, "The PDS did not move its clock");
      child.stdin?.write(`${JSON.stringify({ advanceClockMs: ms })}\n`);
      await answered;
    },
    async createAccount(name) {
      const handle = `${name}.test`;
      const created = await post<{ did: string; accessJwt: string }>(
        xrpcUrl("com.atproto.server.createAccount"),
        { handle, email: `${name}@example.test`, password: `${name}-account-password` },
      );
      const app = await post<{ password: string }>(
        xrpcUrl("com.atproto.server.createAppPassword"),
        { name: "possekit" },
        created.accessJwt,
      );
      return { did: created.did, handle, appPassword: app.password, accessJwt: created.accessJwt };
    },
    async signIn(account) {
      const name = account.handle.replace(/\.test$/, "");
      const session = await post<{ accessJwt: string }>(xrpcUrl("com.atproto.server.createSession"), {
        identifier: account.handle,
        password: `${name}-account-password`,
      });
      return { ...account, accessJwt: session.accessJwt };
    },
    async createPost(account, text) {
      const made = await post<{ uri: string; cid: string }>(
        xrpcUrl("com.atproto.repo.createRecord"),
        {
          repo: account.did,
          collection: "app.bsky.feed.post",
          record: { $type: "app.bsky.feed.post", text, createdAt: new Date().toISOString() },
        },
        account.accessJwt,
      );
      return { ...made, rkey: made.uri.split("/").pop() ?? "" };
    },
    getRecord: (repo, collection, rkey) =>
      xrpc(xrpcUrl("com.atproto.repo.getRecord", { repo, collection, rkey })),
    async listRecords(repo, collection) {
      const answer = await xrpc<{ records: { uri: string; value: PostRecord }[] }>(
        xrpcUrl("com.atproto.repo.listRecords", { repo, collection, limit: "100" }),
      );
      return answer.records;
    },
    async getBlob(did, cid) {
      const response = await fetch(xrpcUrl("com.atproto.sync.getBlob", { did, cid }));
      if (!response.ok) throw new Error(`getBlob ${cid}: ${response.status} ${await response.text()}`);
      return {
        bytes: Buffer.from(await response.arrayBuffer()),
        type: response.headers.get("content-type") ?? "",
      };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
