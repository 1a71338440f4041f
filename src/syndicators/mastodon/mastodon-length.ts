// How Mastodon counts a status (its StatusLengthValidator): in graphemes, every link as 23
// characters whatever its length, and a mention of a remote account without its domain.
import { countGraphemes } from "../../contract/graphemes.ts";
import { findUrls } from "../shared/urls.ts";

export const mastodonUrlLength = 23;

/** `urlLength`: the instance's characters_reserved_per_url, 23 on Mastodon. */
export function mastodonLength(text: string, urlLength = mastodonUrlLength): number {
  const urlPlaceholder = "x".repeat(urlLength);
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
