// The real host and a few helpers to upload files as Micropub clients do (multipart/form-data).
import { readdirSync } from "node:fs";
import { request } from "node:http";
import type { Engine } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

export interface MediaServer {
  server: TestServer;
  micropub: string;
  media: string;
  /** Files in the media folder, hidden temporary ones included. */
  files(): string[];
  upload(form: FormData, token: string | null, url?: string): Promise<Response>;
  close(): Promise<void>;
}

export async function startMediaServer(
  engine: Engine,
  media: Record<string, unknown> = {},
  more: Parameters<typeof startTestServer>[0] = {},
): Promise<MediaServer> {
  const server = await startTestServer({
    engine,
    ...more,
    config: { plugins: [], ...(more.config ?? {}), media },
  });
  const micropub = `${server.url}/micropub`;
  return {
    server,
    micropub,
    media: `${micropub}/media`,
    files() {
      try {
        return readdirSync(server.host.hostConfig.media.folder);
      } catch {
        return [];
      }
    },
    upload: (form, token, url = `${micropub}/media`) =>
      fetch(url, {
        method: "POST",
        headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: form,
      }),
    close: () => server.close(),
  };
}

export function formWith(field: string, bytes: Uint8Array, type: string, filename: string): FormData {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(bytes)], { type }), filename);
  return form;
}

/** A GET with the path sent byte for byte (fetch would normalise "..", "%2e%2e" stays). */
export function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
