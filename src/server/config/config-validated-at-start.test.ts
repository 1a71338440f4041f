// Configuration (decision 0005): possekit.config.json or --config, validated at start; an invalid file
// stops the start with one line per problem naming the field; no file runs defaults; secrets and
// PORT come from the environment; production refuses to start without SECRET.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError, loadConfig } from "./load.ts";

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "possekit-config-"));
  folders.push(folder);
  return folder;
}

const SECRETS = { SECRET: "a-test-secret-of-32-characters..", PASSWORD: "a test password" };

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`);
    assert.equal(
      error.message,
      `The configuration${error.file ? ` in ${error.file}` : ""} is not valid:\n${error.problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    return error.problems;
  }
  assert.fail("the configuration was accepted");
}

describe("loading the configuration", () => {
  it("refuses an invalid file with one line per problem, each naming its field", () => {
    const cwd = tempFolder();
    writeFileSync(
      join(cwd, "possekit.config.json"),
      JSON.stringify({
        application: { port: "3000", url: "ftp://example.org", prot: 1, rateLimit: { signIn: 0 } },
        publication: { postUrlPattern: "{me}notes/" },
        plugins: "@possekit/endpoint-syndicate",
        "@possekit/endpoint-syndicate": "/syndikat",
      }),
    );
    const problems = problemsOf(() => loadConfig({ cwd, env: SECRETS }));
    assert.equal(problems.length, 7, problems.join("\n"));
    const fields = problems.map((line) => line.slice(0, line.indexOf(": ")));
    assert.deepEqual(
      new Set(fields),
      new Set([
        "application.url",
        "application.port",
        "application.rateLimit.signIn",
        "application.prot",
        "publication.postUrlPattern",
        "plugins",
        "@possekit/endpoint-syndicate",
      ]),
    );
    assert.ok(
      problems.includes("application.url: must be an absolute http(s) URL, e.g. https://example.org"),
    );
    assert.ok(problems.includes("publication.postUrlPattern: must contain {slug}"));
    assert.ok(problems.includes('application.prot: unknown option; did you mean "port"?'));
  });

  it("reads --config PATH, relative to the working folder", () => {
    const cwd = tempFolder();
    writeFileSync(
      join(cwd, "elsewhere.json"),
      JSON.stringify({ application: { name: "Elsewhere", port: 8080 } }),
    );
    const config = loadConfig({ cwd, configPath: "elsewhere.json", env: SECRETS });
    assert.equal(config.application.name, "Elsewhere");
    assert.equal(config.application.port, 8080);
    assert.equal(config.baseDir, cwd);
  });

  it("names the file when it is not JSON, or when --config names a file that is not there", () => {
    const cwd = tempFolder();
    writeFileSync(join(cwd, "possekit.config.json"), "{ application: }");
    const [notJson, ...more] = problemsOf(() => loadConfig({ cwd, env: SECRETS }));
    assert.equal(more.length, 0);
    assert.equal(notJson, "is not valid JSON: Expected property name or '}' at line 1, column 3");
    const [missing] = problemsOf(() => loadConfig({ cwd, configPath: "missing.json", env: SECRETS }));
    assert.match(missing ?? "", /missing\.json: cannot be read \(ENOENT\)/);
  });

  it("runs sensible defaults without any file, generating a password once and keeping it under ./data", () => {
    const cwd = tempFolder();
    const first = loadConfig({ cwd, env: {} });
    assert.equal(first.application.port, 3000);
    assert.equal(first.application.url, "http://localhost:3000");
    assert.equal(first.application.host, "127.0.0.1");
    assert.equal(first.application.bodyLimit, 100_000);
    assert.equal(first.publication.me, "http://localhost:3000/");
    assert.deepEqual(first.file.plugins, ["@possekit/endpoint-syndicate"]);
    assert.equal(first.database, join(cwd, "data", "db"));
    assert.equal(first.production, false);
    assert.ok(first.generatedPassword, "the first start generates a password to print");
    assert.equal(first.secrets.password, first.generatedPassword);
    assert.equal(readFileSync(join(cwd, "data", "password"), "utf8").trim(), first.generatedPassword);
    assert.equal(statSync(join(cwd, "data", "secret")).mode & 0o777, 0o600);

    const second = loadConfig({ cwd, env: {} });
    assert.equal(second.generatedPassword, undefined, "printed once only");
    assert.equal(second.secrets.password, first.secrets.password);
    assert.equal(second.secrets.secret, first.secrets.secret);
  });

  it("takes SECRET and PASSWORD from the environment without writing either to disk", () => {
    const cwd = tempFolder();
    const config = loadConfig({ cwd, env: { ...SECRETS, WEBHOOK_SECRET: "a-webhook-secret-long-enough" } });
    assert.equal(config.secrets.secret, SECRETS.SECRET);
    assert.equal(config.secrets.password, SECRETS.PASSWORD);
    assert.equal(config.secrets.webhookSecret, "a-webhook-secret-long-enough");
    assert.equal(config.generatedPassword, undefined);
    assert.equal(existsSync(join(cwd, "data")), false);
  });

  it("lets PORT override the configured port, and refuses a PORT that is not a port", () => {
    const cwd = tempFolder();
    writeFileSync(join(cwd, "possekit.config.json"), JSON.stringify({ application: { port: 8080 } }));
    const config = loadConfig({ cwd, env: { ...SECRETS, PORT: "4567" } });
    assert.equal(config.application.port, 4567);
    assert.equal(config.application.url, "http://localhost:4567");
    assert.deepEqual(
      problemsOf(() => loadConfig({ cwd, env: { ...SECRETS, PORT: "http" } })),
      ["PORT: must be a whole number from 0 to 65535"],
    );
  });

  it("refuses to start in production without SECRET (and without PASSWORD), generating nothing", () => {
    const cwd = tempFolder();
    const problems = problemsOf(() => loadConfig({ cwd, env: { NODE_ENV: "production" } }));
    assert.ok(
      problems.includes("SECRET: must be set in production (a long random string)"),
      problems.join("\n"),
    );
    assert.ok(problems.some((line) => line.startsWith("PASSWORD: ")));
    assert.equal(existsSync(join(cwd, "data")), false);
    const config = loadConfig({ cwd, env: { ...SECRETS, NODE_ENV: "production" } });
    assert.equal(config.production, true);
  });

  it("refuses secrets too short to be secret", () => {
    const cwd = tempFolder();
    const problems = problemsOf(() => loadConfig({ cwd, env: { SECRET: "short", WEBHOOK_SECRET: "short" } }));
    assert.deepEqual(
      problems.map((line) => line.slice(0, line.indexOf(":"))),
      ["SECRET", "WEBHOOK_SECRET"],
    );
  });

  it("uses DATABASE_URL over the file, runs without a database for false, and resolves a PGlite folder", () => {
    const cwd = tempFolder();
    writeFileSync(
      join(cwd, "possekit.config.json"),
      JSON.stringify({ application: { database: "store/db" } }),
    );
    assert.equal(loadConfig({ cwd, env: SECRETS }).database, join(cwd, "store", "db"));
    const url = "postgres://user@db.example:5432/blog";
    assert.equal(loadConfig({ cwd, env: { ...SECRETS, DATABASE_URL: url } }).database, url);
    assert.deepEqual(
      problemsOf(() => loadConfig({ cwd, env: { ...SECRETS, DATABASE_URL: "mysql://x" } })),
      ["DATABASE_URL: must be a postgres:// URL"],
    );
    assert.equal(
      loadConfig({ cwd, config: { application: { database: false } }, env: SECRETS }).database,
      false,
    );
  });

  it("keeps uploads in <dataDir>/media, or media.folder relative to the config file; refuses a bad media option in one line", () => {
    const cwd = tempFolder();
    const defaults = loadConfig({ cwd, env: SECRETS });
    assert.equal(defaults.media.folder, join(defaults.application.dataDir, "media"));
    assert.equal(defaults.media.maxBytes, 10_000_000);
    const chosen = loadConfig({
      cwd,
      config: { media: { folder: "uploads", maxBytes: 5000 } },
      env: SECRETS,
    });
    assert.equal(chosen.media.folder, join(cwd, "uploads"));
    assert.equal(chosen.media.maxBytes, 5000);
    assert.deepEqual(
      problemsOf(() =>
        loadConfig({ cwd, config: { media: { folder: "", maxBytes: "10MB" } }, env: SECRETS }),
      ),
      [
        'media.folder: must be a folder path, e.g. "data/media" or "/var/lib/possekit/media"',
        "media.maxBytes: must be a number of bytes, e.g. 10000000 (10 MB)",
      ],
    );
    assert.deepEqual(
      problemsOf(() => loadConfig({ cwd, config: { media: { maxBytes: 10 } }, env: SECRETS })),
      ["media.maxBytes: must be at least 1000 bytes; 10000000 is 10 MB"],
    );
  });

  it("refuses a key that is neither a section nor a plug-in's options entry, such as a misspelt section", () => {
    const cwd = tempFolder();
    const problems = problemsOf(() =>
      loadConfig({ cwd, config: { aplication: { port: 1 }, theme: "dark" }, env: SECRETS }),
    );
    assert.deepEqual(problems, [
      'aplication: unknown section; did you mean "application"?',
      "theme: is no section (application, publication, fetch, media, backup, plugins) and no plug-in in plugins; check the spelling",
    ]);
    const byPath = loadConfig({
      cwd,
      config: { plugins: ["./mine.ts"], "./mine.ts": { a: 1 } },
      env: SECRETS,
    });
    assert.deepEqual(byPath.file["./mine.ts"], { a: 1 });
  });

  it("keeps each plug-in's options entry under its package name", () => {
    const cwd = tempFolder();
    const config = loadConfig({
      cwd,
      config: { "@possekit/endpoint-syndicate": { mountPath: "/syndikat" } },
      env: SECRETS,
    });
    assert.deepEqual(config.file["@possekit/endpoint-syndicate"], { mountPath: "/syndikat" });
  });
});
