// The site's per-entry choices (decision 0038), validated with zod and merged into one value.
// POSSE Party's object (in `<posse:post>` or a JSON Feed `_posse`) has many fields; those that
// choose where an entry goes and what its text is are read: syndicate, format_string, truncate,
// append_url, and the same per platform in platform_overrides. An h-entry's `mp-syndicate-to`
// names the targets. Each field is checked on its own: a wrong one is left out with a sentence in
// the entry's problems, and the rest of the entry's choices still apply. Unknown fields (POSSE
// Party's og_image, media, channel...) are ignored without a word: they are not mistakes.
import { z } from "zod";
import type { DraftChoice } from "./entry-draft.ts";
import type { EntryChoices, TargetChoice } from "./feed-entry.ts";

const MAX_FORMAT_STRING = 5000;

/**
 * How deep a choice object may nest. POSSE Party's is three deep (platform_overrides.bsky.truncate);
 * one nested thousands deep overflows the stack of whatever walks it (JSON.stringify, zod), and
 * that error would make the whole feed unreadable instead of this entry's choices.
 */
export const MAX_CHOICE_DEPTH = 32;

/** True when `value` nests objects or arrays more than `limit` deep; walked without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}

/** Each field we read, under its POSSE Party name, with what a valid value is and how to say so. */
const FIELDS = [
  { name: "syndicate", key: "syndicate", schema: z.boolean(), expected: "true or false" },
  {
    name: "format_string",
    key: "formatString",
    schema: z.string().trim().min(1).max(MAX_FORMAT_STRING),
    expected: `a non-empty text of at most ${MAX_FORMAT_STRING} characters`,
  },
  { name: "truncate", key: "truncate", schema: z.boolean(), expected: "true or false" },
  { name: "append_url", key: "appendUrl", schema: z.boolean(), expected: "true or false" },
] as const;

const object = z.record(z.string(), z.unknown());
const targetUid = z.string().trim().min(1).max(2048);

const LABELS: Record<DraftChoice["source"], string> = {
  "posse:post": "<posse:post>",
  _posse: "_posse",
  "mp-syndicate-to": "mp-syndicate-to",
};

const show = (value: unknown) => {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
};

function readFields(value: Record<string, unknown>, where: string, problems: string[]): TargetChoice {
  const choice: TargetChoice = {};
  for (const field of FIELDS) {
    if (!(field.name in value)) continue;
    const parsed = field.schema.safeParse(value[field.name]);
    if (parsed.success) Object.assign(choice, { [field.key]: parsed.data });
    else
      problems.push(
        `${where} "${field.name}" is ${show(value[field.name])}, not ${field.expected}; ignored.`,
      );
  }
  return choice;
}

function readPosse(value: unknown, label: string, into: EntryChoices, problems: string[]): boolean {
  const parsed = object.safeParse(value);
  if (!parsed.success) {
    problems.push(`${label} is ${show(value)}, not an object; ignored.`);
    return false;
  }
  Object.assign(into, readFields(parsed.data, label, problems));
  if ("platform_overrides" in parsed.data) {
    const overrides = object.safeParse(parsed.data.platform_overrides);
    if (!overrides.success) {
      problems.push(`${label} "platform_overrides" is not an object of platforms; ignored.`);
    } else {
      for (const [platform, override] of Object.entries(overrides.data)) {
        const where = `${label} platform_overrides.${platform}`;
        const fields = object.safeParse(override);
        if (!fields.success) {
          problems.push(`${where} is ${show(override)}, not an object; ignored.`);
          continue;
        }
        const choice = readFields(fields.data, where, problems);
        if (Object.keys(choice).length > 0)
          into.perTarget[platform] = { ...into.perTarget[platform], ...choice };
      }
    }
  }
  return true;
}

function readTargets(value: unknown, into: EntryChoices, problems: string[]): boolean {
  const values = Array.isArray(value) ? value : [value];
  const targets: string[] = [];
  for (const candidate of values) {
    const parsed = targetUid.safeParse(candidate);
    if (parsed.success) targets.push(parsed.data);
    else problems.push(`mp-syndicate-to value ${show(candidate)} is not a target uid; ignored.`);
  }
  if (targets.length === 0) return false;
  into.targets = [...new Set([...(into.targets ?? []), ...targets])];
  return true;
}

/**
 * The entry's choices, or undefined when it made none that are valid. `problems` receives one
 * sentence per ignored choice or field.
 *
 * @example
 * entryChoices([{ source: "_posse", value: { truncate: true, platform_overrides: { bsky: { syndicate: false } } } }], [])
 * // { truncate: true, perTarget: { bsky: { syndicate: false } }, sources: ["_posse"] }
 */
export function entryChoices(drafts: readonly DraftChoice[], problems: string[]): EntryChoices | undefined {
  const choices: EntryChoices = { perTarget: {}, sources: [] };
  for (const draft of drafts) {
    if (draft.problem) {
      problems.push(draft.problem);
      continue;
    }
    if (nestedDeeperThan(draft.value, MAX_CHOICE_DEPTH)) {
      problems.push(
        `${LABELS[draft.source]} nests more than ${MAX_CHOICE_DEPTH} levels deep, which no choice needs; ignored.`,
      );
      continue;
    }
    const used =
      draft.source === "mp-syndicate-to"
        ? readTargets(draft.value, choices, problems)
        : readPosse(draft.value, LABELS[draft.source], choices, problems);
    if (used && !choices.sources.includes(draft.source)) choices.sources.push(draft.source);
  }
  return choices.sources.length > 0 ? choices : undefined;
}
