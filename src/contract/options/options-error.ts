// A plug-in's options did not validate. Thrown by a plug-in's constructor so that the host can list
// each problem under the plug-in's name in the configuration (with "did you mean" for a misspelt
// option), beside every other configuration problem, instead of stopping at the first plug-in.
import type { z } from "zod";
import { unknownKeyLines } from "./did-you-mean.ts";

/** One line per problem, naming its path; with the schema, unknown keys get a "did you mean". */
export function formatIssues(issues: z.core.$ZodIssue[], prefix = "", schema?: z.ZodType): string[] {
  return issues.flatMap((issue) => {
    if (schema && issue.code === "unrecognized_keys") return unknownKeyLines(schema, issue, prefix);
    const path = issue.path.map(String).join(".");
    // A problem with the whole of a prefixed entry (a plug-in's options) is named by the prefix.
    const where = path ? `${prefix}${path}` : prefix.replace(/\.$/, "") || "(top level)";
    return [`${where}: ${issue.message}`];
  });
}

export class OptionsError extends Error {
  constructor(
    message: string,
    readonly issues: z.core.$ZodIssue[],
    readonly schema: z.ZodType,
  ) {
    super(message);
    this.name = "OptionsError";
  }

  /** The problems as configuration lines: `<plug-in name>.<option>: <what is wrong>`. */
  linesFor(pluginName: string): string[] {
    return formatIssues(this.issues, `${pluginName}.`, this.schema);
  }
}
