import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { issueToken, startChildServer } from "../lib/child-server.ts";
import { createPost, postSyndicate, startStreamingBatch } from "../lib/http-client.ts";
import { sleep } from "../lib/stats.ts";

const dir = `/tmp/pc-${randomBytes(3).toString("hex")}`;
mkdirSync(dir, { recursive: true });
const opts = {
  dir,
  database: { kind: "pglite" as const, folder: `${dir}/db` },
  secret: randomBytes(24).toString("base64url"),
  delayTarget: { uid: "https://delay.example/@p", delayMs: 60000 },
};
const first = await startChildServer(opts);
await first.stop();
const config = JSON.parse(readFileSync(`${dir}/possekit.config.json`, "utf8"));
const url = config.application.url;
const child = spawn(
  process.execPath,
  [
    "--cpu-prof",
    "--cpu-prof-dir=/tmp/profchild",
    "bin/possekit.js",
    "serve",
    "--config",
    `${dir}/possekit.config.json`,
  ],
  {
    env: { ...process.env, SECRET: opts.secret, PASSWORD: "x-not-used-xx", LOG_LEVEL: "error" },
    stdio: "inherit",
  },
);
for (;;) {
  try {
    if ((await fetch(`${url}/health`)).status === 200) break;
  } catch {}
  await sleep(100);
}
const token = await issueToken(opts);
for (let i = 0; i < 3; i++) await createPost(url, token, `p${i}`, ["https://delay.example/@p"]);
console.log(await startStreamingBatch(url, token));
const t = performance.now();
for (let w = 0; w < 20; w++) await Promise.all(Array.from({ length: 100 }, () => postSyndicate(url, token)));
console.log("2000 refusals in", performance.now() - t);
child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));
