import { parseDocument } from "htmlparser2";
import render from "dom-serializer";
const h = (s: string) => render(parseDocument(s), { encodeEntities: "utf8" });
console.log(h(`<p>a<br/>b <img src='x' alt="a&amp;b &quot;q&quot;"/> &nbsp; &lt; &#8220;q&#8221; &amp; <a href=y>z</a></p><script>x<y</script><ul><li>1<li>2</ul>`));
console.log(h(`<p>a<br>b <img src="x" alt='a&amp;b "q"'> \u00a0 &lt; “q” &amp; <a href="y">z</a></p><script>x<y</script><ul><li>1</li><li>2</li></ul>`));
const paragraph = `<p>${"A long paragraph of text, with <a href='/x'>a link</a> in it. ".repeat(40)}</p>`;
const html = paragraph.repeat(Math.ceil((1 * 1024 * 1024) / paragraph.length));
for (let i = 0; i < 5; i++) { const s = performance.now(); h(html); console.log("1MB parse+render", (performance.now() - s).toFixed(0)); }
