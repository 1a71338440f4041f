// What the providers send, built from node:crypto alone so that the code under test (jose, our HMAC
// check) is checked against an independent implementation rather than against itself.
import { createHash, createHmac, generateKeyPairSync, sign } from "node:crypto";

export const SECRET = "correct-horse-battery-staple-7f3a9c";
export const OTHER_SECRET = "not-the-webhook-secret-0b1e22";

const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

export const sha256Hex = (body: string | Buffer) => createHash("sha256").update(body).digest("hex");

/** A compact JWS: base64url(header).base64url(payload).base64url(signature over the first two). */
export function compactJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  signInput: (input: string) => Buffer,
): string {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  return `${input}.${base64url(signInput(input))}`;
}

export const hmacWith =
  (hash: "sha256" | "sha512", secret: string) =>
  (input: string): Buffer =>
    createHmac(hash, secret).update(input).digest();

/** An RSA-SHA256 signature with a key pair made for the occasion (nobody's secret). */
export function rsaSha256(): (input: string) => Buffer {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return (input) => sign("sha256", Buffer.from(input), privateKey);
}

/** X-Webhook-Signature as Netlify makes it: HS256 JWT with iss "netlify" and the body's sha256. */
export function netlifySignature(body: string | Buffer, secret: string = SECRET): string {
  return compactJws(
    { alg: "HS256", typ: "JWT" },
    { iss: "netlify", sha256: sha256Hex(body) },
    hmacWith("sha256", secret),
  );
}

/** X-Hub-Signature-256 as GitHub makes it. */
export function hubSignature256(body: string | Buffer, secret: string = SECRET): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** A Netlify deploy object as posted by "Deploy succeeded", with fields overridden. */
export function netlifyDeployBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: "5ebc34bf4fea0b01f02efa3a",
    site_id: "fa4dd95a-994e-4f89-8a7a-2d9e9fc36a32",
    build_id: "5ebc34bf4fea0b01f02efa38",
    state: "ready",
    name: "example-blog",
    url: "https://blog.example.org",
    ssl_url: "https://blog.example.org",
    admin_url: "https://app.netlify.com/sites/example-blog",
    deploy_url: "http://5ebc34bf4fea0b01f02efa3a--example-blog.netlify.app",
    deploy_ssl_url: "https://5ebc34bf4fea0b01f02efa3a--example-blog.netlify.app",
    created_at: "2024-05-13T17:56:15.346Z",
    updated_at: "2024-05-13T17:58:56.738Z",
    user_id: "5ace049efdd72a6b9aa9539c",
    error_message: null,
    required: [],
    commit_ref: "9f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6",
    review_id: null,
    branch: "main",
    commit_url: "https://github.com/example/blog/commit/9f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6",
    skipped: null,
    locked: null,
    title: "New note",
    review_url: null,
    published_at: "2024-05-13T17:58:56.634Z",
    context: "production",
    deploy_time: 159,
    ...overrides,
  });
}

/** A GitHub deployment_status event body, with deployment_status fields overridden. */
export function deploymentStatusBody(status: Record<string, unknown> = {}): string {
  return JSON.stringify({
    action: "created",
    deployment_status: {
      id: 1,
      state: "success",
      description: "Deployment finished successfully.",
      environment: "production",
      target_url: "https://blog.example.org",
      environment_url: "https://blog.example.org",
      ...status,
    },
    deployment: {
      id: 42,
      sha: "9f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6",
      ref: "main",
      environment: "production",
    },
    repository: { id: 7, full_name: "example/blog" },
    sender: { login: "octocat" },
  });
}
