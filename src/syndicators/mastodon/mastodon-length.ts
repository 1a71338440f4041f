// How Mastodon counts a status (its StatusLengthValidator): in graphemes, every link as 23
// characters whatever its length, and a mention of a remote account without its domain.
import { countGraphemes } from "../shared/graphemes.ts";
import { findUrls } from "../shared/urls.ts";

export const mastodonUrlLength = 23;
const urlPlaceholder = "x".repeat(mastodonUrlLength);

export function mastodonLength(text: string): number {
  let countable = "";
  let at = 0;
  for (const { start, end } of findUrls(text)) {
    countable += text.slice(at, start) + urlPlaceholder;
    at = end;
  }
  countable += text.slice(at);
  countable = countable.replace(/(^|[^\w@/])@(\w+)@[\w.-]+\w/g, "$1@$2");
  return countGraphemes(countable);
}
