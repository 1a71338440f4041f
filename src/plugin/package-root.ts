import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's root folder, where the plug-in's views/ and locales/ live (src/ or dist/ is one level down). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
