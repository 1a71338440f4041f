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
  // TextDecoder drops the byte order mark of the encoding it decodes.
  return decoder(label).decode(body);
}
