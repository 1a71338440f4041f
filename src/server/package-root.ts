import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's root folder, where views/, locales/ and public/ live. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
