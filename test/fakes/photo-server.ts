// A tiny static server for the photos of test posts: what a syndicator fetches before uploading.
import { listen } from "../../dev/sandbox/http-kit.ts";

/** The smallest well-formed JPEG header bytes; the fakes only pass bytes on, nobody decodes them. */
export const jpegBytes = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9,
]);

export interface PhotoServer {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  /** Serves `bytes` at `path` with the given type. */
  add(path: string, bytes: Buffer, contentType?: string): string;
  close(): Promise<void>;
}

export async function startPhotoServer(): Promise<PhotoServer> {
  const files = new Map<string, { bytes: Buffer; contentType: string }>();
  const requests: string[] = [];
  const running = await listen((request, response) => {
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    requests.push(path);
    const file = files.get(path);
    if (!file) {
      response.writeHead(404, { "content-type": "text/html" });
      response.end("<h1>Not found</h1>");
      return;
    }
    response.writeHead(200, { "content-type": file.contentType, "content-length": file.bytes.length });
    response.end(file.bytes);
  });
  const add = (path: string, bytes: Buffer, contentType = "image/jpeg") => {
    files.set(path, { bytes, contentType });
    return `${running.url}${path}`;
  };
  add("/photo.jpg", jpegBytes);
  add("/page.html", Buffer.from("<h1>Not a photo</h1>"), "text/html");
  return { url: running.url, requests, add, close: running.close };
}
