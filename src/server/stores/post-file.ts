// A post as its generator's file: YAML front matter, then the content. The front matter is written
// by the yaml package, never by joining strings, so a title holding "---" or a newline stays a
// quoted value and cannot end the front matter or add a key.
import { stringify } from "yaml";
import type { Post } from "../../contract/posts.ts";
import { frontMatterValues, type Preset } from "./presets.ts";

/** The post's text: its HTML when it has some (Markdown passes HTML through), else its plain text. */
function body(properties: Record<string, unknown>): string {
  const content = properties.content;
  if (typeof content === "string") return content;
  if (content && typeof content === "object") {
    const { html, text, value } = content as { html?: unknown; text?: unknown; value?: unknown };
    if (typeof html === "string") return html;
    if (typeof text === "string") return text;
    if (typeof value === "string") return value;
  }
  const summary = properties.summary;
  return typeof summary === "string" ? summary : "";
}

export function postFile(post: Post, preset: Preset): string {
  const frontMatter = preset.frontMatter(frontMatterValues(post));
  const yaml = stringify(frontMatter, { lineWidth: 0 });
  const text = body(post.properties);
  return `---\n${yaml}---\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}`;
}
