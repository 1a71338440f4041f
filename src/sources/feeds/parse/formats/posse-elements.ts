// POSSE Party's per-entry element (https://posseparty.com/2024/Feed): `<posse:post format="json">`
// holding a JSON object, inside an Atom <entry> (and, since it costs nothing to accept, an RSS or
// RSS 1.0 <item>). feedsmith reads only the namespaces it knows, so these elements are read here,
// in a second pass with the same XML parser, and only when the body declares the namespace: a feed
// without it pays nothing.
import { XMLParser } from "fast-xml-parser";
import type { DraftChoice } from "../entry-draft.ts";

export const POSSE_NAMESPACE = "https://posseparty.com/2024/Feed";

/** One entry's element, with what identifies the entry, so that it can be matched to feedsmith's. */
export interface PosseElement {
  /** The entry's position among the feed's entries. */
  index: number;
  /** Atom id, RSS guid or rdf:about, when the entry has one. */
  id?: string;
  choice: DraftChoice;
}

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Entities are decoded below (the five of XML and character references), never from a doctype.
  processEntities: false,
  isArray: (name) => localName(name) === "entry" || localName(name) === "item",
});

function localName(name: string): string {
  return name.slice(name.indexOf(":") + 1).toLowerCase();
}

function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (whole, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(Number.parseInt(lower.slice(1), 10));
    return ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" } as Record<string, string>)[lower] ?? whole;
  });
}

function textOf(node: unknown): string | undefined {
  if (typeof node === "string") return node;
  if (node && typeof node === "object") {
    const text = (node as XmlNode)["#text"];
    if (typeof text === "string") return text;
  }
  return undefined;
}

function child(node: XmlNode, name: string): unknown {
  for (const [key, value] of Object.entries(node)) if (localName(key) === name) return value;
  return undefined;
}

function entriesOf(document: XmlNode): XmlNode[] {
  for (const [key, root] of Object.entries(document)) {
    if (!root || typeof root !== "object") continue;
    const name = localName(key);
    if (name !== "rss" && name !== "rdf" && name !== "feed") continue;
    // RSS 2.0 puts its items inside the channel, RSS 1.0 beside it, Atom its entries in the feed.
    const container = name === "rss" ? child(root as XmlNode, "channel") : root;
    if (!container || typeof container !== "object") return [];
    const entries = child(container as XmlNode, name === "feed" ? "entry" : "item");
    return Array.isArray(entries) ? (entries as XmlNode[]) : [];
  }
  return [];
}

function prefixesOf(xml: string): Set<string> {
  const prefixes = new Set<string>();
  const declaration = /xmlns:([A-Za-z_][\w.-]*)\s*=\s*["']https:\/\/posseparty\.com\/2024\/Feed\/?["']/g;
  for (const match of xml.matchAll(declaration)) if (match[1]) prefixes.add(match[1]);
  return prefixes;
}

function readElement(value: unknown): DraftChoice {
  const element = Array.isArray(value) ? value[0] : value;
  const format = element && typeof element === "object" ? (element as XmlNode)["@format"] : undefined;
  if (typeof format === "string" && format.trim().toLowerCase() !== "json") {
    return {
      source: "posse:post",
      problem: `<posse:post format="${format}"> is ignored: only format="json" is read.`,
    };
  }
  const text = decodeXmlText(textOf(element) ?? "").trim();
  if (!text) return { source: "posse:post", problem: "<posse:post> is empty; ignored." };
  try {
    return { source: "posse:post", value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { source: "posse:post", problem: `<posse:post> is not valid JSON (${reason}); ignored.` };
  }
}

/**
 * The `<posse:post>` elements of a feed, by entry; empty when the feed does not declare the namespace.
 * `xml` must already be well-formed (parse-feed.ts validates it first).
 */
export function posseElements(xml: string): PosseElement[] {
  if (!xml.includes("posseparty.com/2024/Feed")) return [];
  const prefixes = prefixesOf(xml);
  const found: PosseElement[] = [];
  const entries = entriesOf(parser.parse(xml) as XmlNode);
  entries.forEach((entry, index) => {
    if (!entry || typeof entry !== "object") return;
    for (const [key, value] of Object.entries(entry)) {
      const colon = key.indexOf(":");
      const prefix = colon > 0 ? key.slice(0, colon) : "";
      // `<post xmlns="https://posseparty.com/2024/Feed">` declares the namespace on the element itself.
      const element = Array.isArray(value) ? value[0] : value;
      const xmlns = element && typeof element === "object" ? (element as XmlNode)["@xmlns"] : undefined;
      const declaredHere =
        !prefix && typeof xmlns === "string" && xmlns.replace(/\/$/, "") === POSSE_NAMESPACE;
      if (localName(key) !== "post" || !(prefixes.has(prefix) || declaredHere)) continue;
      const id = textOf(child(entry, "id")) ?? textOf(child(entry, "guid")) ?? entryAbout(entry);
      found.push({
        index,
        ...(id?.trim() ? { id: decodeXmlText(id.trim()) } : {}),
        choice: readElement(value),
      });
    }
  });
  return found;
}

function entryAbout(entry: XmlNode): string | undefined {
  for (const [key, value] of Object.entries(entry)) {
    if (localName(key) === "about" && key.startsWith("@") && typeof value === "string") return value;
  }
  return undefined;
}
