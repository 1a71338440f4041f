// The ustar archives a backup is made of: PGlite's dumpDataDir writes one (the database folder),
// and a backup file is one more, gzipped, around it and the data folder's keys and uploads. Plain
// files and folders only: nothing else is ever written into these, so nothing else is read back.
import { normalize, sep } from "node:path";

const BLOCK = 512;

export interface TarEntry {
  /** A relative path with "/" between its parts. */
  name: string;
  /** A folder when absent. */
  data?: Uint8Array;
  mode?: number;
}

/** A NUL-terminated ASCII field of a tar header. */
const field = (header: Uint8Array, start: number, length: number) => {
  const raw = Buffer.from(header.subarray(start, start + length));
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString("utf8");
};

const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, "0")}\0`;

/** ustar's name field holds 100 bytes, its prefix 155 more, split at a "/". */
function splitName(name: string): { prefix: string; base: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: "", base: name };
  for (let cut = name.indexOf("/"); cut !== -1; cut = name.indexOf("/", cut + 1)) {
    const prefix = name.slice(0, cut);
    const base = name.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100) return { prefix, base };
  }
  throw new Error(`${name}: the path is too long for the archive (over 255 bytes)`);
}

function header(entry: TarEntry): Buffer {
  const block = Buffer.alloc(BLOCK);
  const { prefix, base } = splitName(entry.data ? entry.name : `${entry.name.replace(/\/+$/, "")}/`);
  block.write(base, 0, 100, "utf8");
  block.write(octal(entry.mode ?? (entry.data ? 0o600 : 0o700), 8), 100, "ascii");
  block.write(octal(0, 8), 108, "ascii");
  block.write(octal(0, 8), 116, "ascii");
  block.write(octal(entry.data?.length ?? 0, 12), 124, "ascii");
  block.write(octal(0, 12), 136, "ascii");
  block.write(entry.data ? "0" : "5", 156, "ascii");
  block.write("ustar\u000000", 257, "ascii");
  block.write(prefix, 345, 155, "utf8");
  // The checksum is summed with its own field as spaces.
  block.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return block;
}

/** The archive of `entries`, as one buffer (a backup is read whole by the restore too). */
export function writeTar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry));
    if (entry.data) {
      parts.push(Buffer.from(entry.data));
      const padding = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
      if (padding > 0) parts.push(Buffer.alloc(padding));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/**
 * The folders and plain files of an archive, each named by a relative path that stays inside
 * (`what` names the archive in the error a damaged or hostile one gets).
 */
export function readTar(archive: Uint8Array, what: string): TarEntry[] {
  const entries: TarEntry[] = [];
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const block = archive.subarray(offset, offset + BLOCK);
    const name = field(block, 0, 100);
    if (name === "") break; // The archive ends with blocks of zeros.
    const prefix = field(block, 345, 155);
    const size = Number.parseInt(field(block, 124, 12).trim() || "0", 8);
    const type = field(block, 156, 1);
    const mode = Number.parseInt(field(block, 100, 8).trim() || "600", 8);
    const relative = normalize(`${prefix ? `${prefix}/` : ""}${name}`)
      .replace(/^[/\\]+/, "")
      .replace(/[/\\]+$/, "");
    if (!Number.isFinite(size) || size < 0 || offset + BLOCK + size > archive.length)
      throw new Error(`${what} is damaged (an entry runs past its end)`);
    if (relative.split(sep).includes(".."))
      throw new Error(`${what} is damaged (an entry names a path outside it)`);
    offset += BLOCK;
    if (relative === "" || relative === ".") continue; // The archive's own root folder.
    if (type === "5") entries.push({ name: relative.split(sep).join("/"), mode });
    else if (type === "0" || type === "")
      entries.push({
        name: relative.split(sep).join("/"),
        data: archive.subarray(offset, offset + size),
        mode,
      });
    offset += Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
