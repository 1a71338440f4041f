// Decision 0044: the server's memory under 20 oversized multipart requests at once, each a
// Micropub post of 1,000 text fields of 1 MB (20 MB announced; the fix refuses it once its text passes
// application.bodyLimit). Prints the child server's RSS before, its peak (VmHWM) and after, and how
// the requests were answered. Run: node --import tsx bench/oversized-multipart-rss.ts [concurrency]
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { startChildServer } from "../test/helpers/child-server.ts";

const concurrency = Number(process.argv[2] ?? 20);
const FIELDS = 1000;
const FIELD = Buffer.alloc(1_000_000, "x");
const boundary = "----possekit-bench";

const status = (pid: number, line: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`^${line}:\\s+(\\d+) kB$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) /
  1024;

/** Sends one oversized post, writing as the server reads, until it answers or closes. */
function oversizedPost(url: string, token: string): Promise<{ status: number; sentMb: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    const req = request({
      hostname,
      port,
      path: "/micropub",
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(FIELDS * (FIELD.length + 100)),
      },
    });
    const done = () => resolve({ status: answered, sentMb: Math.round(sent / 1e6) });
    req.on("response", (res) => {
      answered = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => {
        req.destroy();
        done();
      });
    });
    req.on("error", done);
    let field = 0;
    const write = () => {
      while (field < FIELDS && !req.destroyed && answered === 0) {
        const head = `--${boundary}\r\nContent-Disposition: form-data; name="f${field}"\r\n\r\n`;
        field++;
        sent += head.length + FIELD.length + 2;
        req.write(head);
        req.write(FIELD);
        if (!req.write("\r\n")) return void req.once("drain", write);
      }
    };
    write();
  });
}

const server = await startChildServer();
console.error(`server ${server.url} (pid ${server.pid}) started`);
try {
  const token = await server.token("draft");
  await fetch(`${server.url}/health`);
  const before = status(server.pid, "VmRSS");
  const results = await Promise.all(
    Array.from({ length: concurrency }, () => oversizedPost(server.url, token)),
  );
  const peak = status(server.pid, "VmHWM");
  const after = status(server.pid, "VmRSS");
  const statuses = results.map((r) => r.status).join(",");
  const sent = results.reduce((sum, r) => sum + r.sentMb, 0);
  console.log(
    `${concurrency} oversized multipart posts at once: answered ${statuses}; the clients sent ${sent} MB in all`,
  );
  console.log(
    `server RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (VmHWM), after ${after.toFixed(0)} MB`,
  );
} finally {
  await server.stop();
}
