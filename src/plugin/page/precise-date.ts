// Attempts of one post often fall within the same minute; the history shows seconds to tell them
// apart, in the reader's locale and the publication's time zone (like the host's formatDate).
import type { Response } from "express";

export function preciseDateFormatter(
  res: Response,
  timeZone: string,
): (value: Date | null | undefined) => string {
  const locale = typeof res.locals.locale === "string" ? res.locals.locale : "en";
  const format = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium", timeZone });
  return (value) => (value ? format.format(value) : "");
}
