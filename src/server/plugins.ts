// Finds a plug-in named in the config: a package the host was given by name (its own Micropub
// endpoint, and those the caller installs: src/built-in-plugins.ts), or a module, by package name or
// path, whose default export is a plug-in class. The plug-in is constructed with its options entry.
// The host knows no plug-in of the package itself: the command line hands them over.
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { OptionsError } from "../contract/options/options-error.ts";
import type { Plugin } from "../contract/plugin.ts";
import { ConfigError } from "./config/load.ts";

export type PluginClass = new (options: Record<string, unknown>) => Plugin;

/** Plug-ins found by package name without importing it, each loaded only when it is named. */
export type BuiltInPlugins = Readonly<Record<string, () => Promise<PluginClass>>>;

/** The host's own: posts enter the server through its Micropub endpoint. */
export const hostPlugins: BuiltInPlugins = {
  "@possekit/endpoint-micropub": async () => (await import("./micropub/index.ts")).default,
};

export async function loadPlugin(
  name: string,
  options: Record<string, unknown>,
  baseDir: string,
  builtIns: BuiltInPlugins = hostPlugins,
): Promise<Plugin> {
  const builtIn = Object.hasOwn(builtIns, name) ? builtIns[name] : undefined;
  let PluginConstructor = await builtIn?.();
  if (!PluginConstructor) {
    const isPath = name.startsWith(".") || isAbsolute(name);
    const specifier = isPath ? pathToFileURL(resolve(baseDir, name)).href : name;
    let module: { default?: unknown };
    try {
      module = (await import(specifier)) as { default?: unknown };
    } catch (error) {
      throw new ConfigError([
        `plugins: cannot load "${name}" (${(error as Error).message.split("\n")[0]}); check the name or path`,
      ]);
    }
    if (typeof module.default !== "function") {
      throw new ConfigError([`plugins: "${name}" has no default export that is a plug-in class`]);
    }
    PluginConstructor = module.default as PluginClass;
  }
  try {
    return new PluginConstructor(options);
  } catch (error) {
    if (error instanceof OptionsError) throw new ConfigError(error.linesFor(name));
    throw new ConfigError([`${name}: ${(error as Error).message.split("\n").join("; ")}`]);
  }
}

/** Every plug-in named, or one list of every problem with any of them. */
export async function loadPlugins(
  names: readonly string[],
  optionsFor: (name: string) => Record<string, unknown>,
  baseDir: string,
  builtIns: BuiltInPlugins = hostPlugins,
): Promise<Plugin[]> {
  const loaded = await Promise.allSettled(
    names.map((name) => loadPlugin(name, optionsFor(name), baseDir, builtIns)),
  );
  const problems = loaded.flatMap((result) => {
    if (result.status === "fulfilled") return [];
    const error: unknown = result.reason;
    return error instanceof ConfigError ? error.problems : [String(error)];
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return loaded.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
}
