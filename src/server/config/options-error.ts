// A plug-in's options did not validate. Thrown by a plug-in's constructor so that the host can list
// each problem under the plug-in's name in the configuration (with "did you mean" for a misspelt
// option), beside every other configuration problem, instead of stopping at the first plug-in.
import type { z } from "zod";
import { formatIssues } from "./load.ts";

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
