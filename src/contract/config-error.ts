// A configuration mistake: one line per problem, naming the option. Its own module, free of zod and
// the schema, so that the command line can recognise one without loading them.
export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    /** The file the problems are in, when they come from one. */
    readonly file?: string,
  ) {
    super(
      `The configuration${file ? ` in ${file}` : ""} is not valid:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    this.name = "ConfigError";
  }
}
