// POST /local/backup: the running server copies the embedded database it holds (no other process
// may open the folder; see folder-lock.ts) for `possekit backup`. Only for a process on this
// machine that can read the folder's lock file, which holds the credential (the owner's alone, as
// the folder is): answered 404 otherwise, as if there were no such route, so it tells a stranger
// nothing. A request that came through a proxy (X-Forwarded-For, Forwarded) is not local, however
// the proxy connects.
import type { Request, RequestHandler } from "express";
import { HttpError } from "../../contract/http-error.ts";
import { secretsEqual } from "../auth/constant-time.ts";
import type { RunningHost } from "../running-host.ts";

export const BACKUP_PATH = "/local/backup";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

function fromThisMachine(req: Request): boolean {
  if (req.headers["x-forwarded-for"] !== undefined || req.headers.forwarded !== undefined) return false;
  return LOOPBACK.test(req.socket.remoteAddress ?? "");
}

export function backupRoute(host: RunningHost): RequestHandler {
  return async (req, res, next) => {
    const key = host.localKey;
    if (key === null || !fromThisMachine(req)) {
      next();
      return;
    }
    const given = /^Bearer (\S+)$/.exec(req.get("authorization") ?? "")?.[1] ?? "";
    if (!secretsEqual(given, key))
      throw new HttpError(
        401,
        "unauthorized",
        "A backup is made for possekit backup, with the credential in the database folder's lock file",
      );
    const { file, manifest } = await host.backup();
    res.setHeader("Content-Type", "application/gzip");
    res.setHeader("Cache-Control", "no-store");
    res.setHeader(
      "Possekit-Backup",
      // The server's environment, not the command's: a cron job or a shell lacks the service's
      // variables, and would not warn that ACCOUNT_SECRETS_KEY must be kept apart from the file.
      JSON.stringify({
        createdAt: manifest.createdAt,
        keys: manifest.keys,
        media: manifest.media,
        fromEnvironment: manifest.fromEnvironment,
      }),
    );
    res.send(file);
  };
}
