// The `template` and `appendUrl` options every text-sending syndicator takes (decision 0027): the copy's
// text rendered from the post with a nunjucks template of the user's, as plain text (autoescape off:
// the services take text, not HTML). Compiled when the plug-in starts, so a broken template stops the
// start with the option named instead of failing the first post.
import nunjucks from "nunjucks";
import { z } from "zod";
import {
  categories,
  contentText,
  firstString,
  type PostText,
  permalink,
  postText,
} from "../../contract/jf2.ts";
import type { PostProperties } from "../../contract/syndicator.ts";

export type AppendUrl = "always" | "ifCut" | "never";

export type CopyTemplate = (properties: PostProperties) => string;

/** One environment for every template: no loader (no includes from disk), no escaping. */
const environment = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("(unknown path)"));
  return lines.join(" ").replace(/\s+/g, " ").slice(0, 200);
}

/** What a template sees of a post. */
export function templateVariables(properties: PostProperties) {
  return {
    name: firstString(properties, "name") ?? "",
    summary: firstString(properties, "summary") ?? "",
    content: contentText(properties) ?? "",
    url: permalink(properties) ?? "",
    categories: categories(properties),
    published: firstString(properties, "published") ?? "",
  };
}

function compile(source: string): CopyTemplate {
  // eagerCompile: a syntax error is thrown here, at start, not at the first post.
  const template = new nunjucks.Template(source, environment, undefined, true);
  return (properties) => template.render(templateVariables(properties)).trim();
}

/** The `template` option: a nunjucks template, checked by compiling and rendering a sample post. */
export const templateOption = () =>
  z
    .string({ error: 'must be a nunjucks template (text), e.g. "{{ name or content }}"' })
    .transform((source, context): CopyTemplate => {
      try {
        const render = compile(source);
        render({ name: "Name", content: "Text", url: "https://example.org/", category: ["a"] });
        return render;
      } catch (error) {
        context.addIssue({
          code: "custom",
          message: `is not a valid nunjucks template: ${firstLine(error)}`,
        });
        return z.NEVER;
      }
    })
    .optional();

/** The `appendUrl` option: when the copy links to the post in its text. */
export const appendUrlOption = () =>
  z.enum(["always", "ifCut", "never"], { error: 'must be "always", "ifCut" or "never"' }).optional();

/**
 * The text a copy is made of. Without a template, the post's name, else its summary, else its
 * content (a name or summary stands for more, so it links to the post). With one, what it renders.
 */
export function copyText(
  properties: PostProperties,
  template: CopyTemplate | undefined,
): PostText | undefined {
  if (!template) return postText(properties);
  const text = template(properties);
  return text ? { text, source: "content" } : undefined;
}

/**
 * Whether the link goes into the text whatever its length ("always"), only when the text was cut
 * ("ifCut"), or never. Unset: always for a name or summary (it stands for more), else when cut.
 */
export function linkRule(
  appendUrl: AppendUrl | undefined,
  includePermalink: boolean,
  text: PostText | undefined,
): AppendUrl {
  if (appendUrl) return appendUrl;
  if (includePermalink) return "always";
  return text !== undefined && text.source !== "content" ? "always" : "ifCut";
}
