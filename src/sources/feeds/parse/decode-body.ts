// A response's bytes as text. The order is the one XML and HTML readers use: a byte order mark
// wins, then the charset of the Content-Type, then what the document declares about itself (an XML
// declaration's encoding, an HTML meta charset), then UTF-8, which JSON always is. A label the
// platform does not know falls back to UTF-8; a byte that is not valid in the encoding becomes
// U+FFFD instead of refusing the whole feed for one bad character.

const SNIFF_BYTES = 1024;

function charsetOfContentType(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "");
  return match?.[1];
}

function charsetDeclared(head: string): string | undefined {
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml?.[1]) return xml[1];
  const meta = /<meta[^>]+charset\s*=\s*["']?([^"'\s/>;]+)/i.exec(head);
  return meta?.[1];
}

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

// windows-1252 at 0x80-0x9F (undefined bytes map to themselves, as the Encoding Standard says).
const WINDOWS_1252_HIGH =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

/**
 * The Encoding Standard reads "iso-8859-1", "latin1" and "windows-1252" all as windows-1252, whose
 * 0x80-0x9F are curly quotes, dashes and the euro sign; Node 20's TextDecoder gives the C1 control
 * characters instead, which would turn an old site's “quotes” into invisible characters.
 */
function windows1252(bytes: Uint8Array): string {
  return new TextDecoder("windows-1252")
    .decode(bytes)
    .replace(/[\u0080-\u009f]/g, (char) => WINDOWS_1252_HIGH[char.charCodeAt(0) - 0x80] ?? char);
}

function decoder(label: string | undefined): TextDecoder {
  try {
    return new TextDecoder(label ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
}

/**
 * The body as text, without a byte order mark.
 *
 * @example
 * decodeBody(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "text/xml; charset=ISO-8859-1") // "café"
 */
export function decodeBody(body: string | Uint8Array, contentType?: string): string {
  if (typeof body === "string") return body.replace(/^\uFEFF/, "");
  const bom = bomEncoding(body);
  // A UTF-16 document's declaration is not readable as ASCII; the BOM is what tells it.
  const label =
    bom ??
    charsetOfContentType(contentType) ??
    charsetDeclared(new TextDecoder("latin1").decode(body.subarray(0, SNIFF_BYTES)));
  const chosen = decoder(label);
  if (chosen.encoding === "windows-1252") return windows1252(body);
  // TextDecoder drops the byte order mark of the encoding it decodes.
  return chosen.decode(body);
}
