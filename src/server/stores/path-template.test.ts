// Path templates (path-template.ts) at their edges: each placeholder, the day in the site's time
// zone, a template naming what it cannot know, an uploaded file's name, and every way a path could
// leave the repository or the site's folder or name no file at all. The presets' own templates and
// the slugs refused are in paths-stay-inside-the-repository-and-front-matter-cannot-be-injected.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkedSlug,
  dateFormatter,
  expandTemplate,
  repositoryPath,
  TEMPLATE_PLACEHOLDERS,
  templateProblem,
} from "./path-template.ts";

const utc = dateFormatter("UTC");
// 23:30 on 9 March in UTC is already 10 March in Tokyo.
const date = new Date("2024-03-09T23:30:00Z");

describe("a template's placeholders", () => {
  it("are {me}, {slug}, {name}, {yyyy}, {MM} and {dd}, each replaced wherever it stands", () => {
    assert.deepEqual([...TEMPLATE_PLACEHOLDERS].sort(), ["MM", "dd", "me", "name", "slug", "yyyy"]);
    assert.equal(
      expandTemplate(
        "{me}/{yyyy}/{MM}/{dd}/{slug}-{slug}/{name}",
        { me: "https://me.example", slug: "s", name: "a.jpg", date },
        utc,
      ),
      "https://me.example/2024/03/09/s-s/a.jpg",
    );
    assert.equal(expandTemplate("{yyyy}-{MM}-{dd}", { date }, dateFormatter("Asia/Tokyo")), "2024-03-10");
    assert.equal(expandTemplate("no placeholder", {}, utc), "no placeholder");
  });

  it("refuse a template naming what a post cannot give, and name it", () => {
    assert.throws(
      () => expandTemplate("notes/{yyyy}/{slug}", { slug: "a" }, utc),
      (error: Error) =>
        error.message === 'The template "notes/{yyyy}/{slug}" needs {yyyy}, which is not known here',
    );
    assert.throws(() => expandTemplate("{title}", { slug: "a", date }, utc), /needs \{title\}/);
    assert.throws(() => expandTemplate("{}", { slug: "a", date }, utc), /needs \{\}/);
  });

  it("are checked when the configuration is read: an unknown one is named, known ones pass", () => {
    assert.equal(templateProblem("content/{yyyy}/{MM}/{dd}/{slug}.md"), undefined);
    assert.equal(templateProblem("{me}{name}"), undefined);
    assert.equal(templateProblem("plain.md"), undefined);
    assert.equal(
      templateProblem("content/{slug}/{title}.md"),
      "uses {title}; only {me}, {slug}, {yyyy}, {MM} and {dd} are known",
    );
    assert.equal(templateProblem("{}"), "uses {}; only {me}, {slug}, {yyyy}, {MM} and {dd} are known");
    assert.equal(
      templateProblem("{Slug}"),
      "uses {Slug}; only {me}, {slug}, {yyyy}, {MM} and {dd} are known",
    );
  });
});

describe("a slug in a path", () => {
  it("is lower-case letters, digits and '-', starting with a letter or digit, at most 81 characters", () => {
    for (const slug of ["a", "0", "a-b-9", `a${"b".repeat(80)}`]) assert.equal(checkedSlug(slug), slug);
    for (const slug of ["-a", `a${"b".repeat(81)}`, "a_b", "a.b", " a", "a ", "é"])
      assert.throws(
        () => checkedSlug(slug),
        (error: Error) =>
          error.message ===
          `The slug ${JSON.stringify(slug)} cannot be part of a file path: only lower-case letters, digits and "-"`,
        slug,
      );
  });
});

describe("a repository path", () => {
  it("takes an uploaded file's stored name, and refuses any other name", () => {
    assert.equal(repositoryPath("media/{name}", { name: "a_B-9.jpeg" }, utc), "media/a_B-9.jpeg");
    assert.equal(
      repositoryPath("media/{name}", { name: `${"n".repeat(64)}.${"x".repeat(8)}` }, utc).length,
      79,
    );
    for (const name of [
      "../a.jpg",
      "a.JPG",
      "a",
      ".jpg",
      "a.b.jpg",
      `${"n".repeat(65)}.jpg`,
      "a.jpegjpegj",
      "a/b.jpg",
      "a.jpg\n",
    ])
      assert.throws(
        () => repositoryPath("media/{name}", { name }, utc),
        (error: Error) =>
          error.message === `The file name ${JSON.stringify(name)} cannot be part of a file path`,
        name,
      );
  });

  it("refuses a control character or a backslash that the template itself holds", () => {
    for (const template of [
      "content/a\u0000/{slug}",
      "content/\u001f{slug}",
      "content/\u007f{slug}",
      "content\\{slug}",
    ])
      assert.throws(
        () => repositoryPath(template, { slug: "a" }, utc),
        (error: Error) => error.message.endsWith("contains a control character or a backslash"),
        JSON.stringify(template),
      );
    assert.equal(repositoryPath("content/\u0020{slug}~", { slug: "a" }, utc), "content/ a~");
  });

  it("is normalised and relative", () => {
    assert.equal(repositoryPath("./content//notes/./{slug}.md", { slug: "a" }, utc), "content/notes/a.md");
    assert.equal(repositoryPath("content/x/../{slug}.md", { slug: "a" }, utc), "content/a.md");
    assert.equal(
      repositoryPath("..{slug}", { slug: "a" }, utc),
      "..a",
      "a name starting with dots is a name",
    );
  });

  it("refuses a template that names the repository itself, a folder, or what lies above it", () => {
    for (const template of ["..", ".", "./", "content/..", "content/{slug}/", "content/../..", "/{slug}"])
      assert.throws(
        () => repositoryPath(template, { slug: "a" }, utc),
        (error: Error) =>
          error.message.startsWith(`The path template "${template}" leads outside the repository ("`),
        template,
      );
  });

  it("stays inside the site's folder, not one whose name starts alike", () => {
    assert.equal(repositoryPath("{slug}.md", { slug: "a" }, utc, "./site"), "site/a.md");
    for (const template of ["../site-other/{slug}.md", "../site", "../{slug}.md"])
      assert.throws(
        () => repositoryPath(template, { slug: "a" }, utc, "site"),
        (error: Error) =>
          error.message === `The path template "${template}" leads outside the site's folder "site"`,
        template,
      );
  });
});
