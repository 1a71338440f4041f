// Conversion between Micropub's microformats2 JSON (what clients send and q=source answers) and the
// JF2 the host stores (src/contract/posts.ts).
//
//   mf2:  {"type": ["h-entry"], "properties": {"content": [{"html": "<p>Hi</p>"}], "photo": [{"value": "u", "alt": "a"}]}}
//   JF2:  {"type": "entry", "content": {"html": "<p>Hi</p>", "text": "Hi"}, "photo": [{"url": "u", "alt": "a"}]}
import { ALWAYS_ARRAY_PROPERTIES, MEDIA_PROPERTIES } from "./jf2.ts";
import { htmlToText } from "./plain-text.ts";

export type Mf2Properties = Record<string, unknown[]>;

export interface Mf2Item {
  type: string[];
  properties: Mf2Properties;
}

export type Jf2Properties = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isMf2Item(value: unknown): value is Mf2Item & { value?: unknown } {
  return (
    isRecord(value) &&
    Array.isArray(value.type) &&
    value.type.every((type) => typeof type === "string") &&
    isRecord(value.properties)
  );
}

/** "h-entry" → "entry"; a type without the h- prefix is kept as it is. */
export function jf2Type(mf2Types: readonly string[]): string {
  const [first] = mf2Types;
  return first ? first.replace(/^h-/, "") : "entry";
}

function mf2ValueToJf2(name: string, value: unknown): unknown {
  if (isMf2Item(value)) {
    const nested: Jf2Properties = { type: jf2Type(value.type), ...mf2PropertiesToJf2(value.properties) };
    if (value.value !== undefined) nested.value = value.value;
    return nested;
  }
  if (MEDIA_PROPERTIES.has(name)) {
    if (typeof value === "string") return { url: value };
    if (isRecord(value) && typeof value.value === "string")
      return typeof value.alt === "string" ? { url: value.value, alt: value.alt } : { url: value.value };
  }
  if (isRecord(value) && typeof value.html === "string") {
    const text = typeof value.value === "string" ? value.value : htmlToText(value.html);
    return { html: value.html, text };
  }
  return value;
}

/** mf2 property arrays → JF2 values: a single value stays plain unless the property is always an array. */
export function mf2PropertiesToJf2(properties: Mf2Properties): Jf2Properties {
  const jf2: Jf2Properties = {};
  for (const [name, values] of Object.entries(properties)) {
    const converted = values.map((value) => mf2ValueToJf2(name, value));
    if (converted.length === 0) continue;
    jf2[name] = ALWAYS_ARRAY_PROPERTIES.has(name) || converted.length > 1 ? converted : converted[0];
  }
  return jf2;
}

/** The values of one property in an update (add, delete), converted like those of a create. */
export function mf2ValuesToJf2(name: string, values: unknown[]): unknown[] {
  return values.map((value) => mf2ValueToJf2(name, value));
}

function jf2ValueToMf2(name: string, value: unknown): unknown {
  if (!isRecord(value)) return value;
  if (typeof value.type === "string") {
    const { type, value: itemValue, ...rest } = value;
    return {
      type: [`h-${type}`],
      properties: jf2PropertiesToMf2(rest),
      ...(itemValue !== undefined ? { value: itemValue } : {}),
    };
  }
  if (MEDIA_PROPERTIES.has(name) && typeof value.url === "string") {
    return typeof value.alt === "string" ? { value: value.url, alt: value.alt } : value.url;
  }
  if (typeof value.html === "string") {
    return typeof value.text === "string" ? { html: value.html, value: value.text } : { html: value.html };
  }
  return value;
}

/** JF2 values → mf2 property arrays (the `type` property is not a property in mf2). */
export function jf2PropertiesToMf2(properties: Jf2Properties): Mf2Properties {
  const mf2: Mf2Properties = {};
  for (const [name, value] of Object.entries(properties)) {
    if (name === "type" || value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    mf2[name] = values.map((inner) => jf2ValueToMf2(name, inner));
  }
  return mf2;
}

/** A stored post as the mf2 item q=source answers. */
export function jf2ToMf2Item(properties: Jf2Properties): Mf2Item {
  const type = typeof properties.type === "string" ? properties.type : "entry";
  return { type: [`h-${type}`], properties: jf2PropertiesToMf2(properties) };
}
