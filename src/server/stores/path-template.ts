// Path and URL templates of the presets and of publication.postTypes: {me}, {slug}, {yyyy}, {MM},
// {dd}. A path always stays inside the repository: a template that could leave it is refused when
// the configuration is read, and a slug that could (a "/", "..", a control character) when a post
// is written.
import { posix } from "node:path";

export const TEMPLATE_PLACEHOLDERS = new Set(["me", "slug", "yyyy", "MM", "dd", "name"]);
/** What a stored slug is made of (post-url.ts slugify, numbered): nothing else reaches a path. */
const SAFE_SLUG = /^[a-z0-9][a-z0-9-]{0,80}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface TemplateValues {
  me?: string;
  slug?: string;
  /** An uploaded file's stored name. */
  name?: string;
  date?: Date;
}

/** Why a template is unusable, or undefined. */
export function templateProblem(template: string): string | undefined {
  for (const [, name] of template.matchAll(/\{([^}]*)\}/g))
    if (!TEMPLATE_PLACEHOLDERS.has(name ?? ""))
      return `uses {${name}}; only {me}, {slug}, {yyyy}, {MM} and {dd} are known`;
  return undefined;
}

export function dateFormatter(timezone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
}

export function expandTemplate(template: string, values: TemplateValues, dates: Intl.DateTimeFormat): string {
  const parts = values.date
    ? Object.fromEntries(dates.formatToParts(values.date).map((part) => [part.type, part.value]))
    : {};
  const known: Record<string, string | undefined> = {
    me: values.me,
    slug: values.slug,
    name: values.name,
    yyyy: parts.year,
    MM: parts.month,
    dd: parts.day,
  };
  return template.replace(/\{([^}]*)\}/g, (_match, name: string) => {
    const value = known[name];
    if (value === undefined)
      throw new Error(`The template "${template}" needs {${name}}, which is not known here`);
    return value;
  });
}

/** A slug that can become part of a path; anything else is refused, never cleaned up silently. */
export function checkedSlug(slug: string): string {
  if (!SAFE_SLUG.test(slug))
    throw new Error(
      `The slug ${JSON.stringify(slug)} cannot be part of a file path: only lower-case letters, digits and "-"`,
    );
  return slug;
}

/**
 * A repository path from a template: relative, normalised, and inside the repository (and inside
 * `folder`, the site's subfolder, when given). Throws otherwise.
 */
export function repositoryPath(
  template: string,
  values: TemplateValues,
  dates: Intl.DateTimeFormat,
  folder = "",
): string {
  if (values.slug !== undefined) checkedSlug(values.slug);
  if (values.name !== undefined && !/^[A-Za-z0-9_-]{1,64}\.[a-z0-9]{1,8}$/.test(values.name))
    throw new Error(`The file name ${JSON.stringify(values.name)} cannot be part of a file path`);
  const expanded = expandTemplate(template, values, dates);
  if (CONTROL.test(expanded) || expanded.includes("\\"))
    throw new Error(`The path "${expanded}" contains a control character or a backslash`);
  const joined = posix.normalize(posix.join(folder, expanded));
  if (
    posix.isAbsolute(expanded) ||
    joined === ".." ||
    joined.startsWith("../") ||
    joined === "." ||
    joined.endsWith("/")
  )
    throw new Error(`The path template "${template}" leads outside the repository ("${joined}")`);
  if (folder && !joined.startsWith(`${posix.normalize(folder)}/`))
    throw new Error(`The path template "${template}" leads outside the site's folder "${folder}"`);
  return joined;
}
