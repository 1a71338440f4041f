import { parseFragment, parse, serialize } from "parse5";
import { Parser } from "htmlparser2";
import { htmlToText } from "./src/contract/plain-text.ts";
const paragraph = `<p>${"A long paragraph of text, with <a href='/x'>a link</a> in it. ".repeat(40)}</p>`;
for (const mb of [0.25, 0.5, 1, 2]) {
const html = paragraph.repeat(Math.ceil((mb * 1024 * 1024) / paragraph.length));
const t = (n: string, f: () => unknown) => { const s = performance.now(); f(); console.log(mb, n, (performance.now() - s).toFixed(0), "ms"); };
t("parse5 fragment", () => parseFragment(html));
t("parse5 doc", () => parse(html));
t("htmlparser2", () => { const p = new Parser({}); p.write(html); p.end(); });
t("htmlToText", () => htmlToText(html));
}
