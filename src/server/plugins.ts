// Finds a plug-in named in the config: a built-in package name, or a path to a module whose default
// export is a plug-in class. The plug-in is constructed with its options entry.
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "./contract.ts";

type PluginClass = new (options: Record<string, unknown>) => Plugin;

async function builtIn(name: string): Promise<PluginClass | undefined> {
  if (name === "@possekit/endpoint-syndicate") return (await import("../index.ts")).default;
  if (name === "@possekit/endpoint-micropub") return (await import("./micropub/index.ts")).default;
  const { builtInSyndicators } = await import("../syndicators/index.ts");
  return builtInSyndicators[name];
}

export async function loadPlugin(
  name: string,
  options: Record<string, unknown>,
  baseDir: string,
): Promise<Plugin> {
  let PluginConstructor = await builtIn(name);
  if (!PluginConstructor) {
    const isPath = name.startsWith(".") || isAbsolute(name);
    const specifier = isPath ? pathToFileURL(resolve(baseDir, name)).href : name;
    let module: { default?: unknown };
    try {
      module = (await import(specifier)) as { default?: unknown };
    } catch (error) {
      throw new Error(
        `plugins: cannot load "${name}" (${(error as Error).message}). Check the name or path.`,
      );
    }
    if (typeof module.default !== "function") {
      throw new Error(`plugins: "${name}" has no default export that is a plug-in class`);
    }
    PluginConstructor = module.default as PluginClass;
  }
  try {
    return new PluginConstructor(options);
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}
