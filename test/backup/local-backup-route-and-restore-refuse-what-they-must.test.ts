// The running server's backup route (POST /local/backup) answers only a process on this machine
// holding the credential in the database folder's lock file: a stranger without it, with a guessed
// one, or a request that came through a proxy gets nothing. The backup it makes restores into a
// database that holds what the server held; a restore refuses a folder that holds something, a
// file that is no backup, and an archive that names paths outside where it belongs.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { builtInPlugins } from "../../src/built-in-plugins.ts";
import { backupFromCli } from "../../src/cli-backup.ts";
import { lastBackup } from "../../src/server/backup/backup-record.ts";
import { makeBackup } from "../../src/server/backup/make-backup.ts";
import { openBackup, RestoreError, restoreBackup } from "../../src/server/backup/restore-backup.ts";
import { loadConfig } from "../../src/server/config/load.ts";
import { openPglite } from "../../src/server/database/pglite.ts";
import { unpackDatabase } from "../../src/server/database/pglite-template.ts";
import { writeTar } from "../../src/server/database/tar.ts";
import { Host } from "../../src/server/host.ts";
import { createLogger } from "../../src/server/logger.ts";
import { snapshot } from "../helpers/database-snapshot.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { freePort } from "../helpers/server.ts";

const folder = mkdtempSync(join(tmpdir(), "possekit-backup-route-"));
// A key as the server makes one (32 random bytes): the server reads it at start.
const accountsKey = `${randomBytes(32).toString("base64url")}\n`;
const dataDir = join(folder, "data");
let host: Host | undefined;
let url = "";
let backupFile: Buffer | undefined;

after(() => rmSync(folder, { recursive: true, force: true }));

const backupAt = (headers: Record<string, string>) =>
  fetch(`${url}/local/backup`, { method: "POST", headers: { accept: "application/json", ...headers } });

describe("POST /local/backup", () => {
  before(async () => {
    // The test's migrated database, as a folder: the server holds it as a user's server does.
    unpackDatabase(
      new Uint8Array(await (await snapshot()).arrayBuffer()),
      join(dataDir, "db"),
      "the snapshot",
    );
    writeFileSync(join(dataDir, "account-secrets-key"), accountsKey, { mode: 0o600 });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      config: { application: { port, url, dataDir }, plugins: [] },
      env: { SECRET: randomBytes(24).toString("base64url"), PASSWORD: "a password for the test" },
      cwd: folder,
    });
    host = new Host(config, { logger: createLogger("error"), builtInPlugins });
    await host.prepare();
    await host.listen();
  });

  after(async () => {
    await host?.stop();
  });

  const lockKey = () => (JSON.parse(readFileSync(join(dataDir, "db.lock"), "utf8")) as { key: string }).key;

  it("refuses a request without the lock's credential, or with another", async () => {
    const key = lockKey();
    assert.ok(key.length >= 40, "the credential is long and random");
    for (const authorization of [
      undefined,
      `Bearer ${randomBytes(32).toString("base64url")}`,
      `Bearer ${key}x`,
      key,
    ]) {
      const response = await backupAt(authorization ? { authorization } : {});
      assert.equal(response.status, 401, String(authorization));
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "unauthorized");
      assert.match(body.error_description, /possekit backup/);
    }
  });

  it("answers a request that came through a proxy as if there were no such route, credential or not", async () => {
    const proxied: Record<string, string>[] = [
      { "x-forwarded-for": "127.0.0.1" },
      { forwarded: "for=127.0.0.1" },
    ];
    for (const header of proxied) {
      const response = await backupAt({ authorization: `Bearer ${lockKey()}`, ...header });
      assert.equal(response.status, 404, JSON.stringify(header));
    }
    assert.equal((await fetch(`${url}/local/backup`)).status, 404, "GET is no backup");
  });

  it("gives the process holding the credential a backup of the database, its keys and uploads", async () => {
    const token = await (host as Host).tokens.issue({ scope: ["create"], clientId: "test", lifetimeDays: 1 });
    const post = await createPostAt(url, token, { content: "Kept by the backup", targets: [] });
    const response = await backupAt({ authorization: `Bearer ${lockKey()}` });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/gzip");
    assert.equal(response.headers.get("cache-control"), "no-store");
    backupFile = Buffer.from(await response.arrayBuffer());
    const { manifest } = openBackup(backupFile, "the backup");
    assert.equal(manifest.database, true);
    assert.deepEqual(manifest.keys, ["account-secrets-key"], "SECRET and PASSWORD came from the environment");
    assert.ok(
      lastBackup(dataDir)?.keys["account-secrets-key"],
      "the data folder notes that the key is backed up",
    );

    const restored = join(folder, "restored");
    const { notes } = restoreBackup(backupFile, "the backup", {
      dataDir: restored,
      database: join(restored, "db"),
      mediaFolder: join(restored, "media"),
    });
    assert.deepEqual(notes, []);
    assert.equal(readFileSync(join(restored, "account-secrets-key"), "utf8"), accountsKey);
    assert.ok(
      lastBackup(restored)?.keys["account-secrets-key"],
      "the restored key counts as backed up: it came from one",
    );
    const database = await openPglite(join(restored, "db"), { template: null });
    try {
      const rows = await database.query<{ url: string }>("SELECT url FROM posts WHERE url = $1", [post]);
      assert.equal(rows.rows.length, 1, "the post made before the backup is in the restored database");
    } finally {
      await database.close();
    }
  });
});

describe("possekit restore refuses", () => {
  const target = (name: string) => ({
    dataDir: join(folder, name),
    database: join(folder, name, "db"),
    mediaFolder: join(folder, name, "media"),
  });
  const refused = (file: Uint8Array, into: ReturnType<typeof target>, message: RegExp) =>
    assert.throws(
      () => restoreBackup(file, "the file", into),
      (error: unknown) => {
        assert.ok(error instanceof RestoreError, String(error));
        assert.match(error.message, message);
        return true;
      },
    );

  it("a data folder that holds something, naming the option", () => {
    const busy = target("busy");
    mkdirSync(busy.dataDir, { recursive: true });
    writeFileSync(join(busy.dataDir, "password"), "another server's\n");
    refused(
      backupFile as Buffer,
      busy,
      /^application\.dataDir: .*busy is not empty; restore only into an empty data folder/,
    );
    assert.equal(
      readFileSync(join(busy.dataDir, "password"), "utf8"),
      "another server's\n",
      "left as it was",
    );
  });

  it("a file that is no backup, and a backup restored beside PostgreSQL", () => {
    refused(
      Buffer.from("not a backup"),
      target("a"),
      /is not a possekit backup \(it is not gzip-compressed\)/,
    );
    refused(
      gzipSync(writeTar([{ name: "x", data: Buffer.from("x") }])),
      target("b"),
      /no possekit-backup\.json/,
    );
    refused(backupFile as Buffer, { ...target("c"), database: "postgres://127.0.0.1/x" }, /names PostgreSQL/);
    const withManifest = (manifest: unknown) =>
      gzipSync(writeTar([{ name: "possekit-backup.json", data: Buffer.from(JSON.stringify(manifest)) }]));
    refused(
      withManifest({ format: "possekit-backup", version: 2 }),
      target("f"),
      /is a backup of format 2; this possekit reads format 1: restore it with the version that made it/,
    );
    refused(
      withManifest({ format: "possekit-backup", version: 1, keys: "secret" }),
      target("g"),
      /is damaged \(its possekit-backup\.json is not one possekit wrote\)/,
    );
  });

  it("an archive entry outside the archive, and writes nothing but the names a backup has", () => {
    const manifest = Buffer.from(
      JSON.stringify({
        format: "possekit-backup",
        version: 1,
        createdAt: "2026-11-28T10:00:00.000Z",
        engine: "none",
        database: false,
        keys: [],
        media: 0,
      }),
    );
    const hostile = writeTar([{ name: "possekit-backup.json", data: manifest }]);
    // A name with ".." written straight into the header, as an attacker's tool would.
    const escaping = Buffer.concat([
      hostile.subarray(0, 512 * 2),
      writeTar([{ name: "keys/x", data: Buffer.from("x") }]),
    ]);
    escaping.write("../../escaped\0\0\0\0", 1024, "utf8");
    let sum = 0;
    escaping.fill(" ", 1024 + 148, 1024 + 156);
    for (const byte of escaping.subarray(1024, 1536)) sum += byte;
    escaping.write(`${sum.toString(8).padStart(6, "0")}\0 `, 1024 + 148, "ascii");
    refused(gzipSync(escaping), target("d"), /names a path outside it/);

    const stray = gzipSync(
      writeTar([
        { name: "possekit-backup.json", data: manifest },
        { name: "keys/authorized_keys", data: Buffer.from("ssh-ed25519 AAAA") },
        { name: "keys/deeper/secret", data: Buffer.from("x") },
        { name: "media/.upload-hidden", data: Buffer.from("x") },
      ]),
    );
    const into = target("e");
    restoreBackup(stray, "the file", into);
    assert.equal(existsSync(join(into.dataDir, "authorized_keys")), false);
    assert.equal(existsSync(join(into.dataDir, "deeper")), false);
    assert.equal(existsSync(join(into.mediaFolder, ".upload-hidden")), false);
  });
});

describe("without a running server, and on PostgreSQL", () => {
  it("possekit backup opens the folder itself when no server holds it, under the same lock", async () => {
    const config = loadConfig({
      config: { application: { dataDir }, plugins: [] },
      env: { SECRET: randomBytes(24).toString("base64url"), PASSWORD: "a password for the test" },
      cwd: folder,
      makeSecrets: false,
    });
    const path = join(folder, "offline.tar.gz");
    assert.equal(existsSync(join(dataDir, "db.lock")), false, "the server that held it has stopped");
    assert.equal(await backupFromCli(config, path), 0);
    assert.equal(openBackup(readFileSync(path), "the backup").manifest.database, true);
    assert.equal(existsSync(join(dataDir, "db.lock")), false, "the lock is let go");
  });

  it("a backup of a server on PostgreSQL holds the keys and uploads, and says to restore the database with pg_restore", async () => {
    const source = join(folder, "on-postgres");
    mkdirSync(join(source, "media"), { recursive: true });
    writeFileSync(join(source, "account-secrets-key"), "k\n", { mode: 0o600 });
    writeFileSync(join(source, "media", "abcdefghijklmnop.png"), "png");
    const { file, manifest } = await makeBackup({
      database: null,
      engine: "postgres",
      dataDir: source,
      mediaFolder: join(source, "media"),
    });
    assert.deepEqual(
      [manifest.engine, manifest.database, manifest.keys, manifest.media],
      ["postgres", false, ["account-secrets-key"], 1],
    );
    const into = join(folder, "back-on-postgres");
    const { notes } = restoreBackup(file, "the file", {
      dataDir: into,
      database: "postgres://127.0.0.1/possekit",
      mediaFolder: join(into, "media"),
    });
    assert.deepEqual(notes, [
      "The database is not in the backup: restore PostgreSQL from your pg_dump (pg_restore) before starting",
    ]);
    assert.equal(readFileSync(join(into, "media", "abcdefghijklmnop.png"), "utf8"), "png");
    assert.equal(readFileSync(join(into, "account-secrets-key"), "utf8"), "k\n");
  });
});
