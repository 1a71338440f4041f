// Where a write under the store's folder really lands. The folder is a checkout of the site's
// repository, and a repository can hold symbolic links (anyone who can push can commit one): a
// folder of posts that points elsewhere (`content/notes -> /etc`), or a post's own file that does.
// Joining paths would follow them out; this resolves the real path of the deepest part that exists
// (every link on the way, the file itself included) and refuses one that leaves the folder or
// enters its `.git`. What does not exist yet is created by us below that real folder, as folders.
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { StoreError } from "./content-store.ts";

const within = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/**
 * Refuses `full` (an absolute path lexically under `root`) when its real path leaves the real
 * `root` or lies in its `.git` folder; `path` is the repository path named in the message.
 */
export async function assertRealPathInside(root: string, full: string, path: string): Promise<void> {
  const realRoot = await realpath(root);
  // The deepest part of the path that exists (a link counts, even one that leads nowhere).
  const rest: string[] = [];
  let existing = full;
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (error) {
      if (!missing(error)) throw error;
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch (error) {
    // A link that leads nowhere: where it would lead is not ours to create.
    if (!missing(error)) throw error;
    throw refusal(path);
  }
  const landing = join(real, ...rest);
  const rel = relative(realRoot, landing);
  if (!within(realRoot, landing) || rel === ".git" || rel.startsWith(`.git${sep}`)) throw refusal(path);
}

function refusal(path: string): StoreError {
  return new StoreError(
    `The path "${path}" leads out of the store's folder through a symbolic link`,
    "remove the symbolic link from the site's repository, or point it inside the site",
  );
}
