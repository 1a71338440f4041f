// Options of @possekit/syndicator-micropub: another site's Micropub endpoint and a token it issued
// (from MICROPUB_ACCESS_TOKEN unless given; without one the plug-in refuses to start).
import { z } from "zod";
import { fromEnv, parseOptions, requiredString, serviceUrl } from "../../contract/options/option-schemas.ts";
import { appendUrlOption, templateOption } from "../shared/copy-template.ts";

export const micropubPluginId = "syndicator-micropub";

const schema = z
  .object(
    {
      micropubEndpoint: serviceUrl(),
      accessToken: requiredString("a non-empty string", "is required (or set MICROPUB_ACCESS_TOKEN)"),
      /** How the target is shown, e.g. "micro.blog". */
      name: requiredString().optional(),
      /** What posts name in mp-syndicate-to; the endpoint's URL unless given. */
      uid: requiredString().optional(),
      /** The copy's content as a nunjucks template of the post; unset: the post's own content. */
      template: templateOption(),
      /** "always" adds the post's URL to the copy's content; it is never cut ("ifCut" adds nothing). */
      appendUrl: appendUrlOption(),
    },
    { error: "must be an object" },
  )
  .strict();

export type MicropubOptions = z.output<typeof schema>;

export function parseMicropubOptions(
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): MicropubOptions {
  const accessToken = options.accessToken ?? fromEnv(env, "MICROPUB_ACCESS_TOKEN");
  return parseOptions(micropubPluginId, schema, { ...options, accessToken });
}
