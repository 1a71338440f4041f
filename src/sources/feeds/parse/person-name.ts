// A person's name from what feeds write in an author field. RSS 2.0's <author> is an address with
// the name in parentheses ("jo@example.com (Jo Doe)"); sites also write it the other way round, or
// as mail does ("Jo Doe <jo@example.com>"), in dc:creator as much as in <author>, and some put a
// bare address where a name belongs (Atom's <name>, JSON Feed's name). Only the name is kept: the
// address is the author's private contact, and a name reaches public copies ({{author_name}}).

const MAX_LENGTH = 1000;

/** The characters that end an address: whitespace, brackets, quotes and list separators. */
const SEPARATORS = /([\s<>()[\]"',;]+)/;

/** "jo@example.com", "mailto:jo@example.com": a word with an "@" between two non-empty parts. */
const isAddress = (word: string) => {
  const at = word.indexOf("@");
  return at > 0 && at < word.length - 1;
};

const hasAddress = (text: string) => text.split(SEPARATORS).some(isAddress);

/** The text without addresses, brackets left empty by them and stray separators. */
function withoutAddresses(text: string): string {
  return text
    .split(SEPARATORS)
    .map((word) => (isAddress(word) ? " " : word))
    .join("")
    .replace(/<\s*>|\(\s*\)|\[\s*\]/g, " ")
    .replace(/\s+/g, " ");
}

/** Trimmed of the separators an address leaves behind (a loop: `[…]+$` is quadratic on a long text). */
function trimSeparators(text: string): string {
  const separator = (char: string) => ' ,;:<>()[]-"'.includes(char);
  let start = 0;
  let end = text.length;
  while (start < end && separator(text.charAt(start))) start += 1;
  while (end > start && separator(text.charAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

/**
 * The name in an author field, never an address; undefined when it names no one but an address.
 *
 * @example
 * personName("jo@example.com (Jo Doe)")    // "Jo Doe"
 * personName("Jo Doe (jo@example.com)")    // "Jo Doe"
 * personName("Jo Doe <jo@example.com>")    // "Jo Doe"
 * personName("jo@example.com")             // undefined
 */
export function personName(value: string | undefined): string | undefined {
  // Longer than any name: not one (and never worth reading word by word).
  if (!value || value.length > MAX_LENGTH) return undefined;
  const text = value.replace(/\s+/g, " ").trim();
  if (!text) return undefined;
  // "outside (inside)": the name is whichever part is not the address; a name with a remark in
  // parentheses ("Jo Doe (editor)") keeps its name.
  const parts = /^([^()]*)\(([^()]*)\)$/.exec(text);
  if (parts) {
    const outside = (parts[1] ?? "").trim();
    const inside = (parts[2] ?? "").trim();
    const chosen = outside && !hasAddress(outside) ? outside : inside;
    return trimSeparators(withoutAddresses(chosen)) || undefined;
  }
  return trimSeparators(withoutAddresses(text)) || undefined;
}
