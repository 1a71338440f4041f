// A certificate for 127.0.0.1, made by openssl for one test run, as a user makes one for a first
// try of https: the proxy and doctor tests serve https on 127.0.0.1 and trust it through `ca`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SelfSigned {
  folder: string;
  keyPath: string;
  certPath: string;
  key: string;
  cert: string;
}

export function selfSignedCertificate(): SelfSigned {
  const folder = mkdtempSync(join(tmpdir(), "possekit-tls-"));
  const keyPath = join(folder, "key.pem");
  const certPath = join(folder, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyPath,
      "-out",
      certPath,
      "-days",
      "2",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  return {
    folder,
    keyPath,
    certPath,
    key: readFileSync(keyPath, "utf8"),
    cert: readFileSync(certPath, "utf8"),
  };
}

/**
 * fetch over node:https trusting `ca`: Node's own fetch takes no certificate authority of the
 * caller's. Enough for the tests' requests: a method, headers, a string body, no redirects followed;
 * plain http goes to fetch. `from.localAddress` picks the client's address (127.0.0.2 is another
 * client on this machine).
 */
const plain = (headers: Headers) => {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
};

export function fetchTrusting(ca: string, from: { localAddress?: string } = {}): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.protocol === "http:") {
        fetch(url, init).then(resolve, reject);
        return;
      }
      const headers = new Headers(init.headers);
      const body =
        typeof init.body === "string"
          ? init.body
          : init.body instanceof URLSearchParams
            ? init.body.toString()
            : undefined;
      if (init.body instanceof URLSearchParams)
        headers.set("content-type", "application/x-www-form-urlencoded");
      const request = httpsRequest(
        url,
        {
          method: init.method ?? "GET",
          headers: plain(headers),
          ca,
          signal: init.signal ?? undefined,
          ...(from.localAddress ? { localAddress: from.localAddress } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(response.headers))
              for (const each of Array.isArray(value) ? value : value === undefined ? [] : [value])
                answer.append(name, each);
            const status = response.statusCode ?? 0;
            resolve(
              new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), {
                status,
                headers: answer,
              }),
            );
          });
          response.on("error", reject);
        },
      );
      request.on("error", reject);
      request.end(body);
    });
}
