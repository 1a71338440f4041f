// The site as a deploy makes it: a fresh clone of the remote, built by the real Hugo (Debian's),
// served by a plain static file server on 127.0.0.1. Until the first build, every page is a 404.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import type { GitRemote } from "./git-remote.ts";

export interface HugoSite {
  /** With its trailing slash: publication.me and Hugo's baseURL. */
  url: string;
  /** Clones the remote and builds it (a deploy); answers Hugo's output folder. */
  build(): string;
  /** The built page of a path, or undefined. */
  page(path: string): string | undefined;
  close(): Promise<void>;
}

export async function startHugoSite(remote: GitRemote): Promise<HugoSite> {
  const output = mkdtempSync(join(tmpdir(), "possekit-hugo-"));
  const built = join(output, "public");
  const fileOf = (path: string): string | undefined => {
    const full = normalize(join(built, decodeURIComponent(path)));
    if (!full.startsWith(built)) return undefined;
    const file = existsSync(full) && statSync(full).isDirectory() ? join(full, "index.html") : full;
    return existsSync(file) && statSync(file).isFile() ? file : undefined;
  };
  const server = createServer((request, response) => {
    const file = fileOf(new URL(request.url ?? "/", "http://site").pathname);
    if (!file) {
      response.writeHead(404, { "content-type": "text/html" });
      response.end("<!doctype html><title>Not found</title>");
      return;
    }
    response.writeHead(200, {
      "content-type": file.endsWith(".html") ? "text/html; charset=utf-8" : "application/octet-stream",
    });
    response.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    build() {
      const source = remote.clone();
      rmSync(built, { recursive: true, force: true });
      execFileSync(
        process.env.HUGO_PATH ?? "/usr/bin/hugo",
        ["--quiet", "--source", source, "--destination", built, "--baseURL", url],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      return built;
    },
    page(path) {
      const file = fileOf(path);
      return file ? readFileSync(file, "utf8") : undefined;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        rmSync(output, { recursive: true, force: true });
      }),
  };
}
