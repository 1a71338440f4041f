// Two endpoints at one mountPath: the host routes every request to the first, so the second is
// silently shadowed. Indiekit always loads its own @indiekit/endpoint-syndicate at /syndicate (its
// default plug-ins cannot be removed, and the user's list is added after them), which is our default
// mountPath too: the plug-in refuses to start and says what to write instead.
import type { IndiekitServer } from "../../contract/plugin.ts";

/** The mountPath we suggest when the default is taken (Indiekit's own endpoint holds /syndicate). */
export const SUGGESTED_MOUNT_PATH = "/posse";

/**
 * The one line that says which endpoint already holds `mountPath` and what to write instead, or
 * undefined when no endpoint added before this one holds it.
 *
 * @example mountPathClash([{ id: "@indiekit-endpoint-syndicate", mountPath: "/syndicate" }], "/syndicate", "@possekit/endpoint-syndicate")
 */
export function mountPathClash(
  endpoints: IndiekitServer["endpoints"],
  mountPath: string,
  packageName: string,
): string | undefined {
  const taken = normalised(mountPath);
  for (const endpoint of endpoints ?? []) {
    if (typeof endpoint.mountPath !== "string" || normalised(endpoint.mountPath) !== taken) continue;
    const holder = endpoint.id ?? endpoint.name ?? "another endpoint";
    const suggestion =
      taken === SUGGESTED_MOUNT_PATH ? `${SUGGESTED_MOUNT_PATH}-syndicate` : SUGGESTED_MOUNT_PATH;
    return (
      `mountPath "${mountPath}" is already served by ${holder}, which would answer every request ` +
      `meant for this endpoint: give it another one, e.g. "${packageName}": { mountPath: "${suggestion}" }`
    );
  }
  return undefined;
}

/** "/syndicate/" and "/Syndicate" reach the same routes as "/syndicate" (Express is case-insensitive). */
function normalised(path: string): string {
  return path.replace(/\/+$/, "").toLowerCase() || "/";
}
