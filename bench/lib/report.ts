// The benchmark report: every figure next to its goal, as a console table, Markdown and JSON.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type Verdict = "PASS" | "MISS" | "INFO" | "SKIP";

export interface FigureRow {
  figure: string;
  /** "PGlite", "PostgreSQL", or "-" when the figure does not depend on the engine. */
  engine: string;
  /** The figure as a reader sees it, e.g. "1.42 ms". */
  measured: string;
  /** The raw number, in `unit`, for tools reading the JSON; null when skipped. */
  value: number | null;
  unit: string;
  /** e.g. "≤ 2 ms"; "-" for context figures. */
  goal: string;
  verdict: Verdict;
  /** Why it missed or was skipped, or what else a reader should know. */
  note?: string;
}

export interface FigureSection {
  id: string;
  title: string;
  /** How the figure is measured, in a sentence or two. */
  method: string;
  rows: FigureRow[];
  /** Markdown blocks shown under the section: plans, breakdowns. */
  details: string[];
  /** Raw measurements for the JSON report. */
  data: Record<string, unknown>;
  /** Where a goal was missed because of the code: what to change, precisely. */
  findings?: string[];
}

export interface BenchReport {
  generatedAt: string;
  mode: "full" | "quick";
  durationMs: number;
  environment: Record<string, string>;
  sections: FigureSection[];
}

const COLUMNS = ["Figure", "Engine", "Measured", "Goal", "Result"] as const;

function cells(row: FigureRow): string[] {
  return [row.figure, row.engine, row.measured, row.goal, row.verdict];
}

/** The table printed at the end of a run. */
export function consoleTable(sections: readonly FigureSection[]): string {
  const rows = sections.flatMap((section) => section.rows.map(cells));
  const widths = COLUMNS.map((title, index) =>
    Math.max(title.length, ...rows.map((row) => (row[index] ?? "").length)),
  );
  const line = (values: readonly string[]) =>
    values.map((value, index) => value.padEnd(widths[index] ?? 0)).join("  ");
  return [line(COLUMNS), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function markdownTable(rows: readonly FigureRow[], withNotes: boolean): string {
  const head = withNotes ? [...COLUMNS, "Note"] : [...COLUMNS];
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const row of rows) {
    const values = withNotes ? [...cells(row), row.note ?? ""] : cells(row);
    lines.push(`| ${values.map(escapeCell).join(" | ")} |`);
  }
  return lines.join("\n");
}

export function markdown(report: BenchReport): string {
  const all = report.sections.flatMap((section) => section.rows);
  const misses = all.filter((row) => row.verdict === "MISS");
  const passes = all.filter((row) => row.verdict === "PASS");
  const out: string[] = [
    "# possekit benchmark report",
    "",
    `Generated ${report.generatedAt} by \`npm run bench${report.mode === "quick" ? " -- --quick" : ""}\` ` +
      `(${report.mode} run, ${(report.durationMs / 60_000).toFixed(1)} minutes). ` +
      "How each figure is measured: [bench/README.md](../README.md).",
    "",
    `**${passes.length} goals met, ${misses.length} missed.**`,
    "",
    "## Environment",
    "",
    ...Object.entries(report.environment).map(([key, value]) => `- ${key}: ${value}`),
    "",
    "## Every figure",
    "",
    markdownTable(all, false),
    "",
  ];
  if (misses.length > 0) {
    out.push("## Goals missed, and why", "");
    for (const row of misses)
      out.push(`- **${row.figure} (${row.engine})**: ${row.note ?? "no reason recorded"}`);
    out.push("");
  }
  const findings = report.sections.flatMap((section) => section.findings ?? []);
  if (findings.length > 0) {
    out.push("## Suggested fixes", "", ...findings.map((finding) => `- ${finding}`), "");
  }
  for (const section of report.sections) {
    out.push(`## ${section.title}`, "", section.method, "", markdownTable(section.rows, true), "");
    for (const block of section.details) out.push(block, "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** Writes latest.md and latest.json (latest-quick.* for a quick run; compare* for --compare) under `folder`. */
export function writeReport(
  report: BenchReport,
  folder: string,
  name = "latest",
): { markdown: string; json: string } {
  mkdirSync(folder, { recursive: true });
  const base = report.mode === "quick" ? `${name}-quick` : name;
  const markdownPath = join(folder, `${base}.md`);
  const jsonPath = join(folder, `${base}.json`);
  writeFileSync(markdownPath, markdown(report));
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  return { markdown: markdownPath, json: jsonPath };
}
