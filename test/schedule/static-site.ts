// A local HTTP server standing in for the static site the posts are published on: every page
// answers 404 until the test "deploys" it, then 200. It records the paths asked for.
import { createServer } from "node:http";

export interface StaticSite {
  /** e.g. http://127.0.0.1:4321 (no trailing slash), for publication.me. */
  url: string;
  /** Paths requested, oldest first. */
  readonly requests: string[];
  /** Pages that answer 200 from now on. */
  deploy(path: string): void;
  close(): Promise<void>;
}

export async function startStaticSite(): Promise<StaticSite> {
  const live = new Set<string>();
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://site").pathname;
    requests.push(path);
    if (live.has(path)) {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<!doctype html><title>Post</title><p>${"live ".repeat(20_000)}</p>`);
      return;
    }
    response.writeHead(404, { "content-type": "text/html" });
    response.end("<!doctype html><title>Not found</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    deploy: (path) => live.add(path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
