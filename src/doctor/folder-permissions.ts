// The data folder holds the database (the ledger, the sessions) and the keys: only the server's
// own user may reach it. The server makes it so; a copy or an unpacked backup may not be.
import { existsSync, statSync } from "node:fs";
import { keyFilesIn } from "../server/backup/kept-files.ts";
import type { Check, Problem } from "./problem.ts";

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, "0");

export const folderPermissions: Check = ({ config }) => {
  const { dataDir } = config.application;
  if (!existsSync(dataDir)) return [];
  const problems: Problem[] = [];
  const mode = statSync(dataDir).mode;
  if (mode & 0o077)
    problems.push({
      option: "application.dataDir",
      problem: `${dataDir} can be read by other users (mode ${octal(mode)})`,
      instead: `run chmod 700 ${dataDir} (as the user the server runs as)`,
    });
  for (const key of keyFilesIn(dataDir)) {
    const keyMode = statSync(key.path).mode;
    if (keyMode & 0o077)
      problems.push({
        option: key.path,
        problem: `can be read by other users (mode ${octal(keyMode)})`,
        instead: `run chmod 600 ${key.path}`,
      });
  }
  return problems;
};
