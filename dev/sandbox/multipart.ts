// A small multipart/form-data reader for the sandbox's media uploads (RFC 7578): enough for what
// fetch's FormData sends, which is all a client of the sandbox sends.

export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface MultipartForm {
  fields: Map<string, string>;
  files: MultipartFile[];
}

export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function headerParameter(header: string, name: string): string | undefined {
  // Anchored so that "name" does not match inside "filename".
  const match = new RegExp(`(?:^|[;\\s])${name}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(header);
  return match?.[1]?.replace(/\\(.)/g, "$1");
}

export function parseMultipart(body: Buffer, boundary: string): MultipartForm {
  const form: MultipartForm = { fields: new Map(), files: [] };
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const partStart = at + delimiter.length;
    // "--" after the delimiter closes the body.
    if (body.subarray(partStart, partStart + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, partStart);
    if (next === -1) break;
    // Each part is CRLF, headers, CRLF CRLF, content, CRLF.
    const part = body.subarray(partStart + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    if (split !== -1) {
      const headers = part.subarray(0, split).toString("utf8");
      const content = part.subarray(split + 4);
      const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? "";
      const field = headerParameter(disposition, "name");
      const filename = headerParameter(disposition, "filename");
      if (field !== undefined && filename !== undefined) {
        const contentType =
          /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1]?.trim() ?? "application/octet-stream";
        form.files.push({ field, filename, contentType, data: Buffer.from(content) });
      } else if (field !== undefined) {
        form.fields.set(field, content.toString("utf8"));
      }
    }
    at = next;
  }
  return form;
}
