// The data folder's keys (the account secrets' among them) exist nowhere else: lose the machine
// and what they unlock is gone. A key counts as backed up when the last `possekit backup` held it
// as it is now (backup-record.ts keeps the digests).
import { keyDigest, lastBackup } from "../server/backup/backup-record.ts";
import { keyFilesIn } from "../server/backup/kept-files.ts";
import type { Check } from "./problem.ts";

export const keyBackup: Check = ({ config }) => {
  const { dataDir } = config.application;
  const last = lastBackup(dataDir);
  return keyFilesIn(dataDir)
    .filter((key) => last?.keys[key.name] !== keyDigest(key.data))
    .map((key) => ({
      option: key.path,
      problem: last ? `changed since the last backup (${last.at.toISOString()})` : "is in no backup",
      instead: "run possekit backup FILE (the server may keep running) and keep the file off this machine",
    }));
};
