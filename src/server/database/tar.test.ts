// The ustar archives of backups: what is written reads back the same, a long path included (split
// into ustar's prefix and name), and a damaged or hostile archive is refused with its name.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readTar, writeTar } from "./tar.ts";

describe("tar", () => {
  it("reads back what it wrote: files, folders, modes and a path over 100 bytes", () => {
    const long = `media/${"a".repeat(60)}/${"b".repeat(70)}.png`;
    const entries = [
      { name: "keys", mode: 0o700 },
      { name: "keys/secret", data: Buffer.from("s3cret\n"), mode: 0o600 },
      { name: long, data: Buffer.alloc(1500, 7), mode: 0o644 },
      { name: "empty", data: Buffer.alloc(0), mode: 0o600 },
    ];
    const archive = writeTar(entries);
    assert.equal(archive.length % 512, 0);
    const read = readTar(archive, "the archive");
    assert.deepEqual(
      read.map((entry) => [
        entry.name,
        entry.mode,
        entry.data ? Buffer.from(entry.data).toString("hex") : null,
      ]),
      entries.map((entry) => [entry.name, entry.mode, entry.data ? entry.data.toString("hex") : null]),
    );
  });

  it("refuses a path too long for ustar rather than cutting it", () => {
    assert.throws(
      () => writeTar([{ name: "x".repeat(120), data: Buffer.from("") }]),
      /too long for the archive/,
    );
  });

  it("refuses an entry that runs past the end, or leaves the archive", () => {
    const archive = writeTar([{ name: "file", data: Buffer.alloc(2000) }]);
    assert.throws(
      () => readTar(archive.subarray(0, 1024), "the cut archive"),
      /the cut archive is damaged \(an entry runs past its end\)/,
    );
    const escaping = writeTar([{ name: "file", data: Buffer.from("x") }]);
    escaping.write("../../etc/passwd\0", 0, "utf8");
    assert.throws(
      () => readTar(escaping, "the hostile archive"),
      /the hostile archive is damaged \(an entry names a path outside it\)/,
    );
  });
});
