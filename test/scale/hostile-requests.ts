// Random and malformed HTTP requests for the fuzz test, from a seeded generator so that a failure
// can be replayed: the same seed gives the same requests in the same order. Most go through
// node:http (which lets a path, a method and header values through as written); some are written
// byte for byte on a raw socket, for what no HTTP client would send (bad request lines, lying
// Content-Length, truncated bodies, invalid bytes in headers).
import { createHash, createHmac } from "node:crypto";
import { SignJWT } from "jose";

/** mulberry32: small, fast and good enough to pick cases; the same seed always gives the same run. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  bytes(length: number): Buffer {
    const buffer = Buffer.alloc(length);
    for (let i = 0; i < length; i += 1) buffer[i] = this.int(256);
    return buffer;
  }

  /** Printable ASCII, with a sprinkling of characters that matter in URLs, forms and JSON. */
  text(length: number): string {
    const special = "%&=?#/\\\"'<>{}[]+;:,. \t";
    let out = "";
    for (let i = 0; i < length; i += 1) {
      out += this.chance(0.15) ? this.pick([...special]) : String.fromCharCode(33 + this.int(94));
    }
    return out;
  }

  /** Any Unicode, lone surrogates included. */
  unicode(length: number): string {
    let out = "";
    for (let i = 0; i < length; i += 1) {
      const kind = this.int(4);
      if (kind === 0) out += String.fromCharCode(this.int(0x80));
      else if (kind === 1) out += String.fromCharCode(0xd800 + this.int(0x800));
      else if (kind === 2) out += String.fromCodePoint(0x1f300 + this.int(0x300));
      else out += String.fromCharCode(0x80 + this.int(0xff00));
    }
    return out;
  }

  size(): number {
    return this.pick([0, 1, 2, 8, 40, 300, 3_000, 20_000]);
  }
}

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD, never a throw). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
}

export interface FuzzContext {
  /** A valid access token (scopes create update), used now and then to get past authentication. */
  token: string;
  /** A valid session cookie "possekit_session=…", and its CSRF token. */
  session: { cookie: string; csrf: string };
  webhookSecret: string;
  /** A post URL that exists. */
  postUrl: string;
  /** The uid of the configured target (a local sandbox). */
  targetUid: string;
}

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | undefined;
}

export interface RawRequest {
  raw: Buffer;
  /** The request is cut short on purpose: the server may close without answering. */
  truncated: boolean;
}

const ROUTES = [
  "/",
  "/health",
  "/status",
  "/session/login",
  "/session/logout",
  "/micropub",
  "/micropub/",
  "/syndicate",
  "/syndicate/",
  "/syndicate/status",
  "/syndicate/posts",
  "/syndicate/posts/1",
  "/syndicate/posts/1/retry",
  "/syndicate/posts/1/confirm",
  "/syndicate/webhook",
  "/syndicate/webhook/netlify",
  "/syndicate/webhook/github",
  "/.well-known/x",
  "/.well-known/oauth-authorization-server",
  "/auth",
  "/auth/consent",
  "/auth/token",
  "/auth/revoke",
  "/auth/introspect",
  "/assets/app.css",
  "/assets/vendor/htmx.min.js",
];

const METHODS = [
  "GET",
  "POST",
  "POST",
  "POST",
  "PUT",
  "DELETE",
  "PATCH",
  "HEAD",
  "OPTIONS",
  "PROPFIND",
  "FOO",
];

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "application/json; charset=koi8-r",
  "application/json; charset=nonsense",
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=latin1",
  "application/x-www-form-urlencoded; charset=utf-32",
  "application/x-www-form-urlencoded; charset=",
  "application/activity+json",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "multipart/form-data; boundary=xyz",
  "text/plain",
  "text/html",
  "application/octet-stream",
  "application/x-ndjson",
  "image/png",
  "*/*",
  ";;;",
  "application/json; charset=utf-8; charset=latin1",
  "x".repeat(2_000),
];

const ACCEPTS = [
  "application/json",
  "text/html",
  "text/event-stream",
  "application/x-ndjson",
  "*/*",
  "text/html;q=0.1, application/json;q=oops",
  "image/png",
  "",
  "a/b/c/d",
];

const ENCODINGS = [
  "gzip",
  "deflate",
  "br",
  "identity",
  "gzip, gzip",
  "compress",
  "x-nonsense",
  "identity;q=1",
];

function randomQuery(random: Random, context: FuzzContext): string {
  const parts: string[] = [];
  // Now and then a query with more parameters than any parser should accept.
  const count = random.chance(0.02) ? 1_200 : random.pick([0, 0, 0, 1, 1, 2, 3, 4, 6, 12, 30]);
  const huge = count > 100;
  for (let i = 0; i < count; i += 1) {
    const key = random.pick([
      "source_url",
      "source_url",
      "source_url[]",
      "source_url[a]",
      "token",
      "q",
      "url",
      "redirect_uri",
      "redirect",
      "properties",
      "__proto__[x]",
      "constructor[prototype][x]",
      "limit",
      "after",
      "before",
      "page",
      "target_uid",
      "client_id",
      "code_challenge",
      "code_challenge_method",
      "grant_type",
      "code",
      random.text(random.int(12) + 1),
    ]);
    if (huge) {
      parts.push(`${key}=${random.int(10)}`);
      continue;
    }
    const value = random.pick([
      context.postUrl,
      encodeURIComponent(context.postUrl),
      "https://example.org/notes/nope/",
      "javascript:alert(1)",
      "//evil.example/",
      "/syndicate",
      "source",
      "config",
      "syndicate-to",
      "1",
      "-1",
      "99999999999999999999999",
      "%",
      "%zz",
      "%E0%A4%A",
      "%C0%AF",
      "%00",
      "%FF%FE",
      random.text(random.int(40)),
      percentEncode(random.unicode(10)),
      "a".repeat(random.chance(0.1) ? 20_000 : random.pick([10, 2_049])),
      context.token,
      `ey${random.text(60)}`,
    ]);
    parts.push(random.chance(0.05) ? key : `${key}=${value}`);
  }
  return parts.length ? `?${parts.join(random.chance(0.1) ? ";" : "&")}` : "";
}

function randomPath(random: Random): string {
  const base = random.pick(ROUTES);
  // Half the requests reach a real route, so that the fuzzing gets past routing.
  const twist = random.chance(0.5) ? -1 : random.int(11);
  switch (twist) {
    case 0:
      return `${base}/${random.text(random.int(30) + 1).replace(/[?#\s]/g, "")}`;
    case 1:
      return `${base}%`;
    case 2:
      return `${base}/%E0%A4%A`;
    case 3:
      return `${base}/%zz%`;
    case 4:
      return `/syndicate/webhook/${random.pick(["x", "%2e%2e", "..", "netlify%00", "GITHUB", "a".repeat(3000)])}`;
    case 5:
      return `/syndicate/posts/${random.pick(["0", "-1", "abc", "1e9", "99999999999999999999", "%F0%9F%92%A9", "1;2"])}${random.pick(["", "/retry", "/confirm", "/x"])}`;
    case 6:
      return `/assets/${random.pick(["../package.json", "..%2f..%2fpackage.json", "%2e%2e/%2e%2e/etc/passwd", "vendor/../../src/cli.ts"])}`;
    case 7:
      return `/.well-known/${random.pick(["x", "oauth-authorization-server", "", "%", random.text(8).replace(/[?#\s]/g, "")])}`;
    case 8:
      return base.toUpperCase();
    case 9:
      return `${base}//`;
    case 10:
      return `/${"a/".repeat(random.int(2_000))}`;
    default:
      return base;
  }
}

function randomJson(random: Random, depth = 0): unknown {
  const kind = random.int(depth > 4 ? 5 : 8);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.pick([0, -1, 1e308, Number.MAX_SAFE_INTEGER, 3.14, -0]);
    case 3:
      return random.pick([
        random.text(random.int(50)),
        random.unicode(random.int(20)),
        "x".repeat(random.size()),
      ]);
    case 4:
      return random.pick(["https://example.org/notes/a/", "h-entry", "", "__proto__"]);
    case 5:
      return Array.from({ length: random.int(6) }, () => randomJson(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      const keys = [
        "type",
        "properties",
        "action",
        "url",
        "source_url",
        "syndication",
        "content",
        "mp-syndicate-to",
        "h",
        "replace",
        "add",
        "delete",
        "access_token",
        "password",
        "redirect_uri",
        "_csrf",
        "target_uid",
        "copy_url",
        "state",
        "deployment_status",
        "context",
        "__proto__",
        "constructor",
        "toString",
        "valueOf",
        "hasOwnProperty",
      ];
      for (let i = 0; i < random.int(6); i += 1) {
        object[random.chance(0.8) ? random.pick(keys) : random.text(8)] = randomJson(random, depth + 1);
      }
      return object;
    }
  }
}

function micropubJson(random: Random, context: FuzzContext): unknown {
  return random.pick([
    {
      type: ["h-entry"],
      properties: {
        content: [random.pick([random.unicode(40), { html: `<p>${random.text(40)}</p>` }, { value: 3 }])],
        "mp-syndicate-to": [random.pick(["https://nowhere.example/@x", random.text(20), 5])],
        published: [random.pick(["2024-01-01T00:00:00Z", "yesterday", "9999-99-99", 0])],
        category: Array.from({ length: random.int(5) }, () => random.text(10)),
        photo: [random.pick([{ value: "not a url", alt: 4 }, "http://[::1", random.text(30)])],
      },
    },
    {
      action: random.pick(["update", "delete", "undelete", "explode"]),
      url: random.pick([context.postUrl, random.text(20)]),
      replace: randomJson(random),
      add: randomJson(random),
      delete: randomJson(random),
    },
    { type: random.pick([["h-entry"], "h-entry", ["h-event"], [], null]), properties: randomJson(random) },
  ]);
}

/** Object.prototype's own names as Micropub fields, which once answered 500 (decision 0017). */
const PROTOTYPE_NAMES = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"];

/**
 * An h-entry whose author is an h-card nested up to thousands of items deep (an mf2 item 1,500 deep
 * once overflowed the stack: decision 0017). Written as text: JSON.stringify itself overflows at that depth.
 */
function deeplyNestedEntry(random: Random): string {
  const depth = random.pick([31, 33, 100, 1_500, 3_000]);
  const property = random.pick(["author", ...PROTOTYPE_NAMES.slice(0, 4)]);
  const open = `{"type":["h-card"],"properties":{"${property}":[`;
  const innermost = `{"type":["h-card"],"properties":{"name":[${random.pick(['"x"', "null"])}]}}`;
  return `{"type":["h-entry"],"properties":{"content":["x"],"${property}":[${open.repeat(depth)}${innermost}${"]}}".repeat(depth)}]}}`;
}

/** A Micropub JSON body: mostly a plausible item or action, sometimes one nested far too deep. */
function micropubJsonText(random: Random, context: FuzzContext): string {
  return random.chance(0.2) ? deeplyNestedEntry(random) : JSON.stringify(micropubJson(random, context));
}

function form(random: Random, context: FuzzContext): string {
  const params = new URLSearchParams();
  const count = random.chance(0.05) ? 1_500 : random.pick([1, 3, 8, 20]);
  for (let i = 0; i < count; i += 1) {
    const key = random.pick([
      "h",
      "content",
      "mp-syndicate-to[]",
      "mp-syndicate-to",
      "source_url",
      "syndication[source_url]",
      "access_token",
      "password",
      "redirect",
      "redirect_uri",
      "_csrf",
      "action",
      "url",
      "target_uid",
      "target_uid[]",
      "copy_url",
      "category[]",
      "photo[value]",
      "published",
      "a[b][c][d][e][f][g]",
      ...PROTOTYPE_NAMES,
      "toString[]",
      "valueOf[value]",
      "__proto__[polluted]",
      "constructor[prototype][polluted]",
      random.text(6),
    ]);
    if (count > 100) {
      params.append(key, String(random.int(10)));
      continue;
    }
    params.append(
      key,
      random.pick([
        "entry",
        context.postUrl,
        random.text(random.int(30)),
        random.unicode(random.int(20)),
        "x".repeat(random.size()),
        random.pick([context.token, context.session.csrf, "wrong"]),
      ]),
    );
  }
  let text = params.toString();
  if (random.chance(0.2)) text += random.pick(["&%", "&a=%zz", "&=&=&", "&%E0%A4%A=1"]);
  return text;
}

async function netlifySignature(random: Random, context: FuzzContext, body: Buffer): Promise<string> {
  const secret = new TextEncoder().encode(
    random.chance(0.5) ? context.webhookSecret : "a wrong secret of some length",
  );
  const sha256 = random.chance(0.7) ? createHash("sha256").update(body).digest("hex") : random.text(64);
  return new SignJWT({ iss: random.pick(["netlify", "netlify", "other"]), sha256 })
    .setProtectedHeader({ alg: random.pick(["HS256", "HS256", "HS512"]) as string })
    .sign(secret);
}

function hubSignature(random: Random, context: FuzzContext, body: Buffer): string {
  const secret = random.chance(0.6) ? context.webhookSecret : "wrong";
  return random.pick([
    `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    `sha256=${random.text(64)}`,
    `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`,
    "sha256=",
    random.text(20),
  ]);
}

function body(random: Random, context: FuzzContext, contentType: string | undefined): Buffer | undefined {
  const kind = random.int(10);
  if (kind === 0) return undefined;
  if (kind === 1) return random.bytes(random.size());
  if (kind === 2) return Buffer.from(form(random, context));
  if (kind === 3) return Buffer.from(micropubJsonText(random, context));
  if (kind === 4) {
    const json = JSON.stringify(randomJson(random));
    return Buffer.from(json.slice(0, Math.max(0, json.length - 1 - random.int(5))));
  }
  if (kind === 5)
    return random.chance(0.3)
      ? Buffer.alloc(100_001, "x")
      : Buffer.from(`source_url=${"y".repeat(random.size())}`);
  if (kind === 6) return Buffer.from(`${"[".repeat(5_000)}${"]".repeat(5_000)}`);
  if (kind === 7)
    return Buffer.from(random.unicode(random.int(200)), random.pick(["utf16le", "latin1", "utf8"]));
  if (kind === 8 && contentType?.startsWith("multipart"))
    return Buffer.from(
      `--xyz\r\nContent-Disposition: form-data; name="${random.text(5)}"\r\n\r\n${random.text(30)}\r\n--xyz`,
    );
  return Buffer.from(JSON.stringify(randomJson(random)));
}

/** A URL on loopback where nothing listens (port 9): never the network, refused at once. */
const NOWHERE = "http://127.0.0.1:9/";

/**
 * A request that a real client could almost send: the right method, credentials and content type
 * for a real route, with fields that are random or wrong — so that the fuzzing reaches the routes'
 * own logic, not only the parsers and authentication in front of them.
 */
async function plausibleRequest(random: Random, context: FuzzContext): Promise<HostileRequest> {
  const bearer = { authorization: `Bearer ${context.token}` };
  const session = { cookie: context.session.cookie, "x-csrf-token": context.session.csrf };
  const accept = random.pick(ACCEPTS);
  const asForm = (fields: Array<[string, string]>) => Buffer.from(new URLSearchParams(fields).toString());
  const anyUrl = () =>
    random.pick([
      context.postUrl,
      `${context.postUrl}x`,
      "https://example.org/",
      "/relative",
      random.text(20),
      "",
      "a".repeat(2_100),
      `${NOWHERE}photo.jpg`,
    ]);
  const kind = random.int(12);
  switch (kind) {
    case 0:
    case 1: {
      // The endpoint: one post or a batch, by query, form or JSON, any Accept, maybe a redirect_uri.
      const sourceUrl = random.chance(0.8) ? anyUrl() : undefined;
      const redirect = random.chance(0.2)
        ? random.pick(["/syndicate", "//evil.example", "https://evil.example/", "/x y", random.text(10)])
        : undefined;
      const way = random.int(3);
      const query = new URLSearchParams();
      if (way === 0 && sourceUrl !== undefined) query.set("source_url", sourceUrl);
      if (redirect !== undefined && random.chance(0.5)) query.set("redirect_uri", redirect);
      const fields: Array<[string, string]> = [];
      if (way === 1 && sourceUrl !== undefined)
        fields.push([random.pick(["source_url", "syndication[source_url]"]), sourceUrl]);
      if (redirect !== undefined) fields.push(["redirect_uri", redirect]);
      const json =
        way === 2
          ? {
              source_url: sourceUrl ?? randomJson(random),
              syndication: random.chance(0.3) ? { source_url: anyUrl() } : undefined,
            }
          : undefined;
      return {
        method: "POST",
        path: `/syndicate${query.size ? `?${query}` : ""}`,
        headers: {
          ...(random.chance(0.7) ? bearer : session),
          accept,
          ...(json
            ? { "content-type": "application/json" }
            : fields.length
              ? { "content-type": "application/x-www-form-urlencoded" }
              : {}),
          ...(random.chance(0.2) ? { "hx-request": "true" } : {}),
        },
        body: json ? Buffer.from(JSON.stringify(json)) : fields.length ? asForm(fields) : undefined,
      };
    }
    case 2: {
      // Micropub creates, with the real target or another, and odd values.
      const fields: Array<[string, string]> = [["h", random.pick(["entry", "entry", "event", "", "card"])]];
      fields.push([
        "content",
        random.pick([random.unicode(random.int(80)), random.text(30), "x".repeat(random.size())]),
      ]);
      if (random.chance(0.6))
        fields.push(["mp-syndicate-to[]", random.chance(0.6) ? context.targetUid : anyUrl()]);
      if (random.chance(0.3))
        fields.push([
          "published",
          random.pick([
            "2024-02-30T25:61:00Z",
            "1970-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            random.text(10),
            new Date(random.int(2 ** 40)).toISOString(),
          ]),
        ]);
      if (random.chance(0.3)) fields.push(["post-status", random.pick(["draft", "published", "nonsense"])]);
      if (random.chance(0.2)) fields.push(["category[]", random.text(15)]);
      if (random.chance(0.1))
        fields.push([
          random.pick(["in-reply-to", "like-of", "repost-of", "bookmark-of", "photo"]),
          random.pick([`${NOWHERE}x`, random.text(12)]),
        ]);
      if (random.chance(0.1))
        fields.push(["mp-slug", random.pick(["../../etc", "a/b", random.unicode(10), "x".repeat(300)])]);
      return {
        method: "POST",
        path: "/micropub",
        headers: {
          ...bearer,
          accept: "application/json",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: asForm(fields),
      };
    }
    case 3: {
      // Micropub updates and deletes of the known post (or of nothing), in JSON.
      const body = {
        action: random.pick(["update", "delete", "undelete", "update"]),
        url: random.chance(0.7) ? context.postUrl : anyUrl(),
        ...(random.chance(0.6)
          ? {
              replace: {
                [random.pick([
                  "content",
                  "mp-syndicate-to",
                  "syndication",
                  "published",
                  "post-status",
                  "name",
                ])]: [random.pick([random.text(20), context.targetUid, 5, null, { html: "<b>x</b>" }])],
              },
            }
          : {}),
        ...(random.chance(0.3)
          ? {
              add: {
                [random.pick(["syndication", "mp-syndicate-to", "category"])]: [
                  random.pick([anyUrl(), context.targetUid, random.text(5)]),
                ],
              },
            }
          : {}),
        ...(random.chance(0.3)
          ? {
              delete: random.pick([["category"], { "mp-syndicate-to": [context.targetUid] }, "content", [5]]),
            }
          : {}),
      };
      // Now and then a property nested deeper than any store accepts (written out: JSON.stringify
      // itself would overflow the stack).
      const depth = random.pick([10, 100, 3_000, 20_000]);
      const text = random.chance(0.15)
        ? `{"type":["h-entry"],"properties":{"content":["deep"],"category":${"[".repeat(depth)}${"]".repeat(depth)}}}`
        : JSON.stringify(body);
      return {
        method: "POST",
        path: "/micropub",
        headers: { ...bearer, accept: "application/json", "content-type": "application/json" },
        body: Buffer.from(text),
      };
    }
    case 4: {
      const query = new URLSearchParams({
        q: random.pick(["source", "config", "syndicate-to", "category", "nonsense", ""]),
      });
      if (random.chance(0.6)) query.set("url", anyUrl());
      if (random.chance(0.3))
        query.set(
          random.pick(["limit", "offset", "after", "properties[]", "properties"]),
          random.pick(["-1", "0", "1e9", "abc", "content", random.text(8)]),
        );
      return {
        method: "GET",
        path: `/micropub?${query}`,
        headers: { ...bearer, accept: "application/json" },
        body: undefined,
      };
    }
    case 5:
    case 6: {
      // The pages, as a signed-in browser and as htmx.
      const path = random.pick([
        `/syndicate?page=${random.pick(["0", "2", "-5", "1e9", "x", "99999999999999999999"])}`,
        "/syndicate",
        `/syndicate/status?seen=${random.pick(["1", "0", "abc", "99999999999999999999999", ""])}&page=${random.int(5)}`,
        `/syndicate/posts?url=${encodeURIComponent(anyUrl())}`,
        `/syndicate/posts/${random.pick(["1", "2", "3", "0", "-1", "9999999999999999999", "abc", "1.5"])}`,
        "/status",
        "/",
      ]);
      return {
        method: random.pick(["GET", "GET", "HEAD"]),
        path,
        headers: {
          ...session,
          accept: random.pick(["text/html", "text/html", "application/json", "*/*"]),
          ...(random.chance(0.3) ? { "hx-request": "true" } : {}),
        },
        body: undefined,
      };
    }
    case 7: {
      // The page's own actions: retry and confirm, by form, with odd fields.
      const fields: Array<[string, string]> = [
        ["_csrf", random.chance(0.8) ? context.session.csrf : "wrong"],
      ];
      const action = random.pick(["retry", "confirm"]);
      if (random.chance(0.8))
        fields.push(["target_uid", random.chance(0.6) ? context.targetUid : random.text(20)]);
      if (random.chance(0.3)) fields.push(["target_uid", random.text(10)]);
      if (action === "confirm") fields.push(["copy_url", anyUrl()]);
      return {
        method: "POST",
        path: `/syndicate/posts/${random.pick(["1", "2", "3", "999999", "x"])}/${action}`,
        headers: {
          cookie: context.session.cookie,
          accept: random.pick(["text/html", "application/json"]),
          "content-type": "application/x-www-form-urlencoded",
          ...(random.chance(0.3) ? { "hx-request": "true" } : {}),
        },
        body: asForm(fields),
      };
    }
    case 8: {
      const fields: Array<[string, string]> = [
        ["password", random.pick(["", random.text(20), "x".repeat(2_000)])],
      ];
      if (random.chance(0.5))
        fields.push([
          "redirect",
          random.pick(["/syndicate", "//evil.example", "https://evil.example", random.text(10)]),
        ]);
      return {
        method: "POST",
        path: random.pick(["/session/login", "/session/logout"]),
        headers: {
          accept: random.pick(["text/html", "application/json"]),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: asForm(fields),
      };
    }
    default: {
      // Webhooks, correctly signed most of the time, with bodies that are and are not deploys.
      const provider = random.pick(["netlify", "github", "generic", "root"]);
      const body = Buffer.from(
        JSON.stringify(
          random.pick([
            {
              state: random.pick(["ready", "error", "building"]),
              context: random.pick(["production", "deploy-preview", "branch-deploy", 5]),
              id: random.text(8),
            },
            {
              deployment_status: {
                state: random.pick(["success", "failure", "queued"]),
                environment: random.pick(["production", "github-pages", "Preview", null]),
              },
              deployment: { environment: "production" },
            },
            { zen: "Keep it logically awesome.", hook_id: random.int(1_000) },
            randomJson(random),
          ]),
        ),
      );
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json",
      };
      if (provider === "netlify" || provider === "root")
        headers["x-webhook-signature"] = await netlifySignature(random, context, body);
      else headers["x-hub-signature-256"] = hubSignature(random, context, body);
      if (provider === "github")
        headers["x-github-event"] = random.pick([
          "ping",
          "deployment_status",
          "deployment_status",
          "push",
          "",
        ]);
      const path = {
        netlify: "/syndicate/webhook/netlify",
        github: "/syndicate/webhook/github",
        generic: "/syndicate/webhook",
        root: "/syndicate",
      }[provider] as string;
      return { method: "POST", path, headers, body };
    }
  }
}

/** One request through node:http. */
export async function hostileRequest(random: Random, context: FuzzContext): Promise<HostileRequest> {
  if (random.chance(0.35)) return plausibleRequest(random, context);
  const method = random.pick(METHODS);
  const path = `${randomPath(random)}${randomQuery(random, context)}`;
  const headers: Record<string, string | string[]> = {};
  const contentType = random.chance(0.8) ? random.pick(CONTENT_TYPES) : undefined;
  if (contentType) headers["content-type"] = contentType;
  if (random.chance(0.8)) headers.accept = random.pick(ACCEPTS);
  if (random.chance(0.1)) headers["content-encoding"] = random.pick(ENCODINGS);

  // A third carry a valid token, so that the fuzzing gets past authentication too.
  const auth = random.int(12);
  if (auth >= 8) headers.authorization = `Bearer ${context.token}`;
  else if (auth === 1)
    headers.authorization = `Bearer ${random.text(random.int(300))}`.replace(/[\r\n]/g, "");
  else if (auth === 2)
    headers.authorization = random.pick([
      "Bearer",
      "Bearer ",
      "Basic Zm9vOmJhcg==",
      "bearer a b",
      `Bearer ${"x".repeat(5_000)}`,
      "Digest x",
    ]);
  else if (auth === 3)
    headers.authorization = `Bearer ey${random.text(20)}.ey${random.text(40)}.${random.text(43)}`.replace(
      /\s/g,
      "",
    );
  else if (auth === 4) headers.authorization = [`Bearer ${context.token}`, "Bearer other"];

  // The valid session never goes to sign-out, which would end it for the rest of the run.
  const cookie = /\/session\/logout/i.test(path) ? 7 : random.int(8);
  if (cookie <= 1) headers.cookie = context.session.cookie;
  else if (cookie === 2)
    headers.cookie = `possekit_session=${random.text(random.int(200))}`.replace(/[\r\n]/g, "");
  else if (cookie === 3)
    headers.cookie = random.pick([
      ";;;",
      "=",
      "possekit_session",
      "possekit_session=%E0%A4%A",
      `a=${"b".repeat(8_000)}`,
      "possekit_session=a; possekit_session=b",
    ]);
  if (headers.cookie === context.session.cookie || random.chance(0.1)) {
    headers["x-csrf-token"] = random.chance(0.7) ? context.session.csrf : random.text(30);
  }
  if (random.chance(0.1))
    headers.origin = random.pick(["null", "https://evil.example", "http://127.0.0.1", random.text(20)]);
  if (random.chance(0.1)) headers["hx-request"] = random.pick(["true", "false", ""]);
  if (random.chance(0.1))
    headers["accept-language"] = random.pick([
      "de",
      "fr-CH, fr;q=0.9",
      "*",
      "xx-YY",
      "de;q=abc",
      "a".repeat(500),
      random.text(30),
    ]);
  if (random.chance(0.05))
    headers["x-forwarded-for"] = random.pick(["1.2.3.4", "garbage", "::1, ::2", random.text(20)]);
  if (random.chance(0.05)) headers["if-none-match"] = random.text(20);
  if (random.chance(0.05))
    headers.range = random.pick(["bytes=0-1", "bytes=-5", "bytes=9999999-", "bytes=a-b", "lines=1-2"]);

  let payload = body(random, context, contentType);
  if (path.startsWith("/syndicate") && random.chance(0.3)) {
    payload ??= Buffer.from(JSON.stringify(randomJson(random)));
    if (random.chance(0.5)) headers["x-webhook-signature"] = await netlifySignature(random, context, payload);
    else headers["x-hub-signature-256"] = hubSignature(random, context, payload);
    if (random.chance(0.5))
      headers["x-github-event"] = random.pick(["ping", "deployment_status", "push", random.text(10)]);
  }
  // Sanitise header values node:http would refuse to send (they are sent raw below instead).
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") headers[name] = value.replace(/[^\t\x20-\x7e]/g, "");
  }
  return { method, path: path.replace(/[^\x21-\x7e]/g, (c) => percentEncode(c)), headers, body: payload };
}

/** One request written byte for byte, to be sent on a raw socket. */
export function rawRequest(random: Random, context: FuzzContext): RawRequest {
  const path = random.pick(ROUTES);
  const kind = random.int(9);
  const head = (lines: string[]) => Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  switch (kind) {
    case 0:
      // A body shorter than its Content-Length.
      return {
        raw: Buffer.concat([
          head([
            `POST ${path} HTTP/1.1`,
            "Host: x",
            "Content-Type: application/json",
            "Content-Length: 5000",
            `Authorization: Bearer ${context.token}`,
          ]),
          Buffer.from('{"source_url": "https://exa'),
        ]),
        truncated: true,
      };
    case 1:
      // Chunked encoding that stops in the middle.
      return {
        raw: Buffer.concat([
          head([
            `POST ${path} HTTP/1.1`,
            "Host: x",
            "Transfer-Encoding: chunked",
            "Content-Type: application/x-www-form-urlencoded",
          ]),
          Buffer.from("10\r\nh=entry&content=\r\nzz\r\n"),
        ]),
        truncated: true,
      };
    case 2:
      return {
        raw: Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\x7f\r\n\r\n`, "latin1"),
        truncated: false,
      };
    case 3:
      return { raw: Buffer.from(`${random.text(20)}\r\n\r\n`, "latin1"), truncated: false };
    case 4:
      return {
        raw: Buffer.from(`GET ${path}/${"\u00e9\u00ff"} HTTP/1.1\r\nHost: x\r\n\r\n`, "latin1"),
        truncated: false,
      };
    case 5:
      return {
        raw: head([`POST ${path} HTTP/1.1`, "Host: x", "Content-Length: 5", "Content-Length: 6"]),
        truncated: false,
      };
    case 6:
      return {
        raw: head([
          `GET ${path} HTTP/1.1`,
          "Host: x",
          `Cookie: possekit_session=${"\u00ff".repeat(30)}`,
          `Authorization: Bearer \u00e9t\u00e9`,
        ]),
        truncated: false,
      };
    case 7:
      return {
        raw: head([`GET ${path} HTTP/1.1`, "Host: x", `X-Huge: ${"h".repeat(40_000)}`]),
        truncated: false,
      };
    default:
      return {
        raw: Buffer.concat([
          head([
            `POST ${path} HTTP/1.1`,
            "Host: x",
            "Content-Type: application/json; charset=utf-8",
            "Content-Length: 12",
            "Connection: close",
          ]),
          Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d, 0x0a, 0x0a]),
        ]),
        truncated: false,
      };
  }
}
