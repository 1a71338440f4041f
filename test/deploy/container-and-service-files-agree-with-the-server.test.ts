// The container image, the compose file, the systemd unit and the nginx site are not run by CI
// (no container engine here; systemd is not PID 1), so their promises are checked as text against
// what the server really does: the image runs as a user of its own with the data folder a volume
// and a health check on /health; it holds every folder the package ships; compose passes only
// environment variables the server reads, keeps the port on 127.0.0.1 and waits for PostgreSQL;
// the unit runs unprivileged and may write only the data folder; nginx lets through the bodies the
// server accepts and passes streams unbuffered. (nginx itself runs this site file in
// test/deploy/behind-nginx-with-https.test.ts.)
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { configFileSchema } from "../../src/server/config/schema.ts";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";

const read = (path: string) => readFileSync(join(PACKAGE_ROOT, path), "utf8");

/** The Dockerfile's instructions of its last stage (the image that runs), continuation lines joined. */
function finalStage(text: string): Array<{ op: string; args: string }> {
  const lines = text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const stages: string[][] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages.at(-1)?.push(line);
  }
  return (stages.at(-1) ?? []).map((line) => {
    const [op = "", ...rest] = line.split(/\s+/);
    return { op: op.toUpperCase(), args: rest.join(" ") };
  });
}

/** Every environment variable the server's code reads (env.NAME, or a target's token by name). */
function variablesRead(): Set<string> {
  const names = new Set<string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".test.ts")) {
        const text = readFileSync(path, "utf8");
        for (const match of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(match[1] as string);
        for (const match of text.matchAll(/fromEnv\(\s*env,\s*"([A-Z][A-Z0-9_]*)"/g))
          names.add(match[1] as string);
      }
    }
  };
  walk(join(PACKAGE_ROOT, "src"));
  return names;
}

const sizeInBytes = (value: string) => {
  const [, number = "0", unit = ""] = /^(\d+)([kmg]?)$/i.exec(value) ?? [];
  return Number(number) * ({ "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[unit.toLowerCase()] ?? Number.NaN);
};

describe("Dockerfile", () => {
  const stage = finalStage(read("Dockerfile"));
  const all = (op: string) => stage.filter((each) => each.op === op).map((each) => each.args);
  const workdir = all("WORKDIR").at(-1) ?? "/";

  it("runs as an unprivileged user, with the data folder a volume", () => {
    const user = all("USER").at(-1);
    assert.ok(user && !/^(root|0)(:|$)/.test(user), `USER ${user}`);
    const volumes = all("VOLUME").flatMap((args) => JSON.parse(args) as string[]);
    // No config file in the image: application.dataDir's default, relative to the working folder.
    const dataDir = posix.join(workdir, configFileSchema.parse({}).application.dataDir);
    assert.deepEqual(volumes, [dataDir]);
    assert.ok(
      stage.some((each) => each.op === "RUN" && each.args.includes(`chmod 700 ${dataDir}`)),
      "the folder is the user's alone",
    );
  });

  it("checks its health on /health of the port it listens on, on every interface", () => {
    const env = all("ENV").join(" ");
    assert.match(env, /\bHOST=0\.0\.0\.0\b/);
    const port = /\bPORT=(\d+)/.exec(env)?.[1];
    assert.deepEqual(all("EXPOSE"), [port]);
    const health = all("HEALTHCHECK").join(" ");
    assert.match(health, /CMD .*\/health/);
    assert.match(health, /process\.env\.PORT/);
    assert.match(all("CMD").join(" "), /bin\/possekit\.js", "serve"/);
  });

  it("holds every folder the package ships", () => {
    const copied = all("COPY").map((args) =>
      args.split(/\s+/).at(-1)?.replace(/^\.\//, "").replace(/\/$/, ""),
    );
    const files = (JSON.parse(read("package.json")) as { files: string[] }).files.filter(
      (each) => !each.startsWith("!"),
    );
    for (const folder of files)
      assert.ok(copied.includes(folder.replace(/\/$/, "")), `${folder} is copied into the image`);
    assert.ok(copied.includes("node_modules"));
    const ignored = read(".dockerignore").split("\n");
    for (const never of ["node_modules", "data", ".git"])
      assert.ok(ignored.includes(never), `.dockerignore: ${never}`);
  });
});

describe("compose.yaml", () => {
  const compose = parse(read("compose.yaml")) as {
    services: Record<
      string,
      {
        environment?: Record<string, string>;
        ports?: string[];
        volumes?: string[];
        depends_on?: Record<string, { condition: string }>;
        healthcheck?: unknown;
      }
    >;
  };
  const possekit = compose.services.possekit;

  it("passes only environment variables the server reads, PostgreSQL's URL naming its service", () => {
    const read = variablesRead();
    assert.ok(
      read.has("SECRET") && read.has("MASTODON_ACCESS_TOKEN"),
      "the scan finds what the server reads",
    );
    for (const name of Object.keys(possekit?.environment ?? {}))
      assert.ok(read.has(name), `${name} is read by the server`);
    const url = possekit?.environment?.DATABASE_URL ?? "";
    assert.match(url, /^postgres:\/\/[^@]+@postgres:5432\//);
    assert.ok(compose.services.postgres?.healthcheck, "PostgreSQL has a health check");
    assert.equal(possekit?.depends_on?.postgres?.condition, "service_healthy");
  });

  it("publishes the port on 127.0.0.1 only, and keeps the data folder and the config where the image reads them", () => {
    for (const port of possekit?.ports ?? []) assert.match(port, /^127\.0\.0\.1:/);
    const dockerfile = finalStage(read("Dockerfile"));
    const workdir = dockerfile.filter((each) => each.op === "WORKDIR").at(-1)?.args ?? "";
    const volume = (JSON.parse(dockerfile.find((each) => each.op === "VOLUME")?.args ?? "[]") as string[])[0];
    const targets = (possekit?.volumes ?? []).map((each) => each.split(":")[1]);
    assert.ok(targets.includes(volume), `the volume ${volume} is mounted`);
    assert.ok(
      targets.includes(posix.join(workdir, "possekit.config.json")),
      "the config file is where serve looks",
    );
  });
});

describe("deploy/possekit.service and deploy/nginx/possekit.conf", () => {
  it("the unit runs unprivileged, writing only the data folder", () => {
    const unit = read("deploy/possekit.service");
    const value = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(unit)?.[1];
    assert.ok(value("User") && value("User") !== "root");
    assert.match(value("ExecStart") ?? "", /possekit serve$/);
    assert.equal(
      value("ReadWritePaths"),
      posix.join(value("WorkingDirectory") ?? "", configFileSchema.parse({}).application.dataDir),
    );
    assert.equal(value("ProtectSystem"), "strict");
  });

  it("nginx lets through every body the server accepts, streams unbuffered, and sets the client's address itself", () => {
    const site = read("deploy/nginx/possekit.conf");
    const defaults = configFileSchema.parse({});
    const limit = sizeInBytes(/client_max_body_size\s+(\S+);/.exec(site)?.[1] ?? "");
    assert.ok(
      limit >= defaults.media.maxBytes && limit >= defaults.application.bodyLimit,
      `client_max_body_size ${limit}`,
    );
    assert.match(site, /proxy_buffering off;/);
    assert.match(site, /proxy_set_header X-Forwarded-For \$remote_addr;/);
    assert.match(site, /proxy_set_header X-Forwarded-Proto \$scheme;/);
  });
});
