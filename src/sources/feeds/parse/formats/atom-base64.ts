// Atom 0.3's base64 text constructs. Atom 0.3 gives a title, summary or content a `mode`: "xml"
// (the default: the element's children are the value), "escaped" (the value is escaped markup,
// which an XML reader already unescapes) or "base64" (the value is base64 of the content, whose
// `type` then says what it is). feedsmith reads all three as written and drops the attribute, so
// base64 text would reach a post as its code letters; this pass finds which constructs are
// base64, and runs only when the body has the attribute at all.
import { XMLParser } from "fast-xml-parser";

type XmlNode = Record<string, unknown>;

/** One entry's base64 constructs, with its id to match it to feedsmith's (which drops empty entries). */
export interface EntryBase64 {
  id?: string;
  title: boolean;
  summary: boolean;
  content: boolean;
}

/** Which text constructs are base64: the feed's title, and each entry's in document order. */
export interface Base64Constructs {
  feedTitle: boolean;
  entries: EntryBase64[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  isArray: (name) => localName(name) === "entry",
});

function localName(name: string): string {
  return name.slice(name.indexOf(":") + 1).toLowerCase();
}

function child(node: XmlNode, name: string): unknown {
  for (const [key, value] of Object.entries(node)) if (localName(key) === name) return value;
  return undefined;
}

function textOf(node: unknown): string | undefined {
  const element = Array.isArray(node) ? node[0] : node;
  if (typeof element === "string") return element;
  const text = element && typeof element === "object" ? (element as XmlNode)["#text"] : undefined;
  return typeof text === "string" ? text : undefined;
}

function isBase64(node: XmlNode, name: string): boolean {
  const value = child(node, name);
  const element = Array.isArray(value) ? value[0] : value;
  const mode = element && typeof element === "object" ? (element as XmlNode)["@mode"] : undefined;
  return typeof mode === "string" && mode.trim().toLowerCase() === "base64";
}

/**
 * The base64 constructs of an Atom feed, or undefined when none says mode="base64". `xml` must
 * already be well-formed (parse-feed.ts validates it first).
 */
export function atomBase64Constructs(xml: string): Base64Constructs | undefined {
  if (!/\smode\s*=\s*["']\s*base64\s*["']/i.test(xml)) return undefined;
  const document = parser.parse(xml) as XmlNode;
  const feed = child(document, "feed");
  if (!feed || typeof feed !== "object") return undefined;
  const entries = child(feed as XmlNode, "entry");
  return {
    feedTitle: isBase64(feed as XmlNode, "title"),
    entries: (Array.isArray(entries) ? (entries as unknown[]) : []).map((entry) => {
      const node = entry && typeof entry === "object" ? (entry as XmlNode) : {};
      const id = textOf(child(node, "id"))?.trim();
      return {
        ...(id ? { id } : {}),
        title: isBase64(node, "title"),
        summary: isBase64(node, "summary"),
        content: isBase64(node, "content"),
      };
    }),
  };
}

/**
 * The constructs of the entry feedsmith read at `index` with `id`: the one with the same id (at the
 * same position first, when two share it), else, for an entry without an id, the one at its position.
 */
export function entryBase64(
  constructs: Base64Constructs | undefined,
  index: number,
  id: string | undefined,
): EntryBase64 | undefined {
  if (!constructs) return undefined;
  const wanted = id?.trim();
  const atIndex = constructs.entries[index];
  if (!wanted) return atIndex;
  return atIndex?.id === wanted ? atIndex : constructs.entries.find((candidate) => candidate.id === wanted);
}

/** Base64 text as the UTF-8 it encodes; undefined when it is not base64. */
export function decodeBase64Text(value: string): string | undefined {
  const compact = value.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) return undefined;
  return new TextDecoder("utf-8").decode(Buffer.from(compact, "base64"));
}
