// What a Micropub POST asks for, read from either encoding (W3C Micropub §3.3-3.7) and validated at
// the edge. Property values stay in mf2 form here; mf2-jf2.ts converts them for storage.
import { z } from "zod";
import { badRequest } from "../../contract/http-error.ts";
import type { Mf2Properties } from "../../contract/mf2-jf2.ts";
import { untrustedInput } from "./untrusted-input.ts";

export type MicropubAction =
  | { action: "create"; type: string[]; properties: Mf2Properties; slug?: string }
  | {
      action: "update";
      url: string;
      replace?: Mf2Properties;
      add?: Mf2Properties;
      delete?: string[] | Mf2Properties;
    }
  | { action: "delete" | "undelete"; url: string };

/** Commands are instructions to the server, not properties; mp-syndicate-to is kept as the post's targets. */
const KEPT_COMMANDS = new Set(["mp-syndicate-to", "mp-syndicate-text", "mp-syndicate-thread"]);
/** Fields of a form that are never properties: the request's own parameters and the host's CSRF field. */
const FORM_RESERVED = new Set(["h", "action", "url", "access_token", "_csrf"]);

const postUrl = z
  .string({ error: 'url must be the post\'s URL, e.g. "https://example.org/notes/hello/"' })
  .min(1);
const propertyName = z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]*$/, {
  error: "property names are letters, digits, - and _ (e.g. content, mp-syndicate-to)",
});
const mf2Type = z.string().regex(/^h-[a-z0-9]+(-[a-z0-9]+)*$/, { error: 'types look like "h-entry"' });

function fail(what: string, error: z.ZodError): never {
  throw badRequest(`${what}: ${z.prettifyError(error).replace(/\n/g, " ")}`);
}

/**
 * mp-photo-alt (Indiekit's convention; Micropub gives an uploaded photo no alt text of its own):
 * the n-th value describes the n-th photo, whether it was uploaded or named by URL.
 */
function withPhotoAlt(properties: Mf2Properties, alts: unknown[]): void {
  const photos = properties.photo;
  if (!photos || alts.length > photos.length)
    throw badRequest(
      "mp-photo-alt has more descriptions than the post has photos; send one per photo, in order",
    );
  properties.photo = photos.map((photo, index) => {
    const alt = alts[index];
    if (typeof alt !== "string" || alt === "") return photo;
    if (typeof photo !== "string")
      throw badRequest("mp-photo-alt describes a photo given by URL or upload; this photo has its own alt");
    return { value: photo, alt };
  });
}

/** Splits mp-* commands from properties; mp-slug becomes the slug, other unknown commands are ignored. */
function takeCommands(properties: Mf2Properties): { properties: Mf2Properties; slug?: string } {
  const kept: Mf2Properties = Object.create(null);
  let slug: string | undefined;
  let photoAlt: unknown[] | undefined;
  for (const [name, values] of Object.entries(properties)) {
    if (name === "access_token") continue;
    if (name === "mp-photo-alt") {
      photoAlt = values;
      continue;
    }
    if (name === "mp-slug") {
      const [first] = values;
      if (typeof first !== "string")
        throw badRequest("mp-slug must be a text value, e.g. mp-slug=my-first-post");
      slug = first;
      continue;
    }
    if (name.startsWith("mp-") && !KEPT_COMMANDS.has(name)) continue;
    kept[name] = values;
  }
  if (photoAlt) withPhotoAlt(kept, photoAlt);
  return slug === undefined ? { properties: kept } : { properties: kept, slug };
}

// ----- form-encoded (application/x-www-form-urlencoded) -----

// The host's extended (qs) parser yields category[]=a&category[]=b as {category: ["a", "b"]}, a lone
// category=a as "a", photo[value]=u&photo[alt]=t as {photo: {value, alt}}; a simple parser would give
// the key "category[]" instead. Both arrive here.
const textOrList = z.union([z.string(), z.array(z.string())]);
const listOf = (value: string | string[]) => (Array.isArray(value) ? value : [value]);
// x-weight[type]=h-measure&x-weight[properties][num]=70.64 arrives as a nested object: made an mf2 item.
const formNestedItem = z
  .strictObject({ type: textOrList, properties: z.record(z.string(), textOrList) })
  .transform((item) => ({
    type: listOf(item.type),
    properties: Object.fromEntries(
      Object.entries(item.properties).map(([name, value]) => [name, listOf(value)]),
    ),
  }));
const formScalar = z.union([
  z.string(),
  z.strictObject({ value: z.string(), alt: z.string().optional() }),
  z.strictObject({ html: z.string() }),
  formNestedItem,
]);
const formBody = z.record(z.string(), z.union([formScalar, z.array(formScalar)]), {
  error: "the form fields must be text values, lists (name[]=…) or photo[value]/photo[alt]",
});

/** Fields given per target uid: each arrives as one object, kept aside from the other fields. */
const PER_TARGET = ["mp-syndicate-text", "mp-syndicate-thread"] as const;

/**
 * mp-syndicate-text[<uid>]=<text> and mp-syndicate-thread[<uid>]=on arrive each as one object keyed
 * by uid: kept aside from the other fields.
 */
function takePerTarget(body: unknown): { rest: unknown; perTarget: Record<string, unknown> } {
  if (typeof body !== "object" || body === null) return { rest: body, perTarget: {} };
  const rest: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  const perTarget: Record<string, unknown> = {};
  for (const name of PER_TARGET) {
    if (!(name in rest)) continue;
    perTarget[name] = rest[name];
    delete rest[name];
  }
  return { rest, perTarget };
}

function readForm(input: unknown): MicropubAction {
  const { rest: body, perTarget } = takePerTarget(input);
  const parsed = formBody.safeParse(body);
  if (!parsed.success) fail("The form could not be read", parsed.error);
  const fields = parsed.data;
  const single = (name: string): string | undefined => {
    const value = fields[name] ?? fields[`${name}[]`];
    const [first] = Array.isArray(value) ? value : [value];
    return typeof first === "string" ? first : undefined;
  };
  const action = single("action");
  if (action !== undefined) {
    if (action === "delete" || action === "undelete") {
      const url = single("url");
      if (!url) throw badRequest(`action=${action} needs url=<the post's URL>`);
      return { action, url };
    }
    if (action === "update")
      throw badRequest("Updates must be sent as JSON (Content-Type: application/json)");
    throw badRequest(`Unknown action "${action}"; use delete or undelete (or update, as JSON)`);
  }
  const h = single("h") ?? "entry";
  const typeCheck = mf2Type.safeParse(`h-${h}`);
  if (!typeCheck.success) throw badRequest(`h=${h} is not a microformats type; use h=entry`);
  // Null prototype: a field named toString or constructor must not find Object.prototype's member.
  const properties: Mf2Properties = Object.create(null);
  for (const [key, value] of Object.entries(fields)) {
    const name = key.endsWith("[]") ? key.slice(0, -2) : key;
    if (FORM_RESERVED.has(name)) continue;
    if (!propertyName.safeParse(name).success) throw badRequest(`"${key}" is not a property name`);
    properties[name] = [...(properties[name] ?? []), ...(Array.isArray(value) ? value : [value])];
  }
  for (const [name, value] of Object.entries(perTarget)) properties[name] = [value];
  return { action: "create", type: [typeCheck.data], ...takeCommands(properties) };
}

// ----- JSON (application/json) -----

const jsonValues = z.preprocess((value) => (Array.isArray(value) ? value : [value]), z.array(z.unknown()));
const jsonCreate = z.object({
  type: z.array(mf2Type, { error: 'type must be a list such as ["h-entry"]' }).min(1),
  properties: z.record(propertyName, jsonValues, {
    error: "properties must be an object of property arrays",
  }),
});
const valuesByProperty = z.record(
  propertyName,
  z.array(z.unknown(), { error: "each property's values must be an array" }),
  {
    error: 'must be an object of property arrays, e.g. {"content": ["new text"]}',
  },
);
const jsonUpdate = z
  .strictObject({
    action: z.literal("update"),
    url: postUrl,
    replace: valuesByProperty.optional(),
    add: valuesByProperty.optional(),
    delete: z
      .union([z.array(propertyName), valuesByProperty], {
        error: 'delete must list property names (["category"]) or name values ({"category": ["old"]})',
      })
      .optional(),
  })
  .refine((update) => update.replace || update.add || update.delete, {
    error: "an update needs replace, add or delete",
  });
const jsonDeletion = z.strictObject({ action: z.enum(["delete", "undelete"]), url: postUrl });

function readJson(body: unknown): MicropubAction {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw badRequest("The JSON body must be an object: an mf2 item to create, or an action");
  const action = (body as Record<string, unknown>).action;
  if (action === undefined) {
    const parsed = jsonCreate.safeParse(body);
    if (!parsed.success) fail("The post could not be read", parsed.error);
    return { action: "create", type: parsed.data.type, ...takeCommands(parsed.data.properties) };
  }
  if (action === "update") {
    const parsed = jsonUpdate.safeParse(body);
    if (!parsed.success) fail("The update is malformed", parsed.error);
    const { url, replace, add, delete: deletion } = parsed.data;
    return {
      action: "update",
      url,
      ...(replace ? { replace } : {}),
      ...(add ? { add } : {}),
      ...(deletion ? { delete: deletion } : {}),
    };
  }
  if (action === "delete" || action === "undelete") {
    const parsed = jsonDeletion.safeParse(body);
    if (!parsed.success) fail(`The ${action} request is malformed`, parsed.error);
    return parsed.data;
  }
  throw badRequest(`Unknown action ${JSON.stringify(action)}; use update, delete or undelete`);
}

export type BodyKind = "form" | "json";

export function readMicropubRequest(kind: BodyKind, body: unknown): MicropubAction {
  const input = untrustedInput(kind === "form" ? (body ?? {}) : body);
  return kind === "form" ? readForm(input) : readJson(input);
}
