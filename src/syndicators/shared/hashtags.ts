// Categories become hashtags. A hashtag is one run of letters, digits and underscores with at least
// one letter, so "indie web" becomes #IndieWeb and "2024" is left out (Mastodon would not link it).

function capitalise(word: string): string {
  const [first = "", ...rest] = Array.from(word);
  return first.toLocaleUpperCase() + rest.join("");
}

/** The hashtag for a category, without "#", or undefined when nothing of it can be a hashtag. */
export function hashtagFor(category: string): string | undefined {
  const words = category.split(/[^\p{L}\p{M}\p{N}_]+/u).filter(Boolean);
  if (words.length === 0) return undefined;
  const tag = words.length === 1 ? (words[0] ?? "") : words.map(capitalise).join("");
  return /\p{L}/u.test(tag) ? tag : undefined;
}

/** "#One #Two", each tag once (case-insensitively), in the order of the categories. */
export function hashtags(categories: readonly string[]): string {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const category of categories) {
    const tag = hashtagFor(category);
    if (!tag || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    tags.push(`#${tag}`);
  }
  return tags.join(" ");
}
