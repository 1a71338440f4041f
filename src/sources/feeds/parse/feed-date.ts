// Dates as feeds write them. RSS 2.0 uses RFC 822 (with 2- or 4-digit years and named zones),
// Atom and JSON Feed RFC 3339, RSS 1.0's dc:date the W3C profile of ISO 8601 (a date alone, or a
// time without seconds), and h-entry the looser forms of microformats (a space for the "T", an
// offset without a colon). What none of these matches is no date: never the time of reading, which
// would make an archive entry look new. Date.parse is not used: it reads a zone-less time in the
// machine's own zone and accepts forms that differ between engines.

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

/** RFC 822 §5.1 zone names and the offsets, in minutes east of UTC, they stand for. */
const ZONES: Record<string, number> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
};

const ISO =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[Tt ]+(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/;

// [day-name,] day month year [hh:mm[:ss]] [zone]; the month by its first three letters.
const RFC822 =
  /^(?:[a-z]+,?\s+)?(\d{1,2})[\s-]+([a-z]{3})[a-z]*\.?[\s-]+(\d{2}|\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:\s*([+-]\d{2}:?\d{2}|[a-z]{1,5}))?$/i;

function offsetMinutes(zone: string | undefined): number | undefined {
  if (!zone) return 0;
  const named = ZONES[zone.toLowerCase()];
  if (named !== undefined) return named;
  const numeric = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!numeric) {
    // RFC 822's military zones: one letter, J excepted. RFC 2822 says they were defined with the
    // wrong sign and are to be read as UTC.
    return /^[a-ik-z]$/i.test(zone) ? 0 : undefined;
  }
  const hours = Number(numeric[2]);
  const minutes = Number(numeric[3] ?? "0");
  if (hours > 23 || minutes > 59) return undefined;
  return (numeric[1] === "-" ? -1 : 1) * (hours * 60 + minutes);
}

function build(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
  offset: number | undefined,
): Date | undefined {
  if (offset === undefined) return undefined;
  if (month < 0 || month > 11 || day < 1 || hour > 24 || minute > 59 || second > 60) return undefined;
  if (hour === 24 && (minute > 0 || second > 0)) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  if (day > daysInMonth) return undefined;
  // A leap second is read as the last second of its minute.
  const time = Date.UTC(year, month, day, hour, minute, Math.min(second, 59), millis) - offset * 60_000;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function fromIso(text: string): Date | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const millis = fraction ? Math.round(Number(`0.${fraction}`) * 1000) : 0;
  // A time without a zone has none we could know; UTC keeps the reading the same on every machine.
  return build(
    Number(year),
    Number(month ?? "1") - 1,
    Number(day ?? "1"),
    Number(hour ?? "0"),
    Number(minute ?? "0"),
    Number(second ?? "0"),
    Math.min(millis, 999),
    offsetMinutes(zone),
  );
}

function fromRfc822(text: string): Date | undefined {
  const match = RFC822.exec(text);
  if (!match) return undefined;
  const [, day, monthName, yearText, hour, minute, second, zone] = match;
  const month = MONTHS[(monthName ?? "").toLowerCase()];
  if (month === undefined) return undefined;
  let year = Number(yearText);
  // RFC 2822 §4.3: a two-digit year below 50 is in the 2000s.
  if ((yearText ?? "").length === 2) year += year < 50 ? 2000 : 1900;
  return build(
    year,
    month,
    Number(day),
    Number(hour ?? "0"),
    Number(minute ?? "0"),
    Number(second ?? "0"),
    0,
    offsetMinutes(zone),
  );
}

/**
 * A feed's date, or undefined when there is none or it cannot be read.
 *
 * @example
 * parseFeedDate("Mon, 01 Sep 2025 12:00:00 GMT")  // 2025-09-01T12:00:00.000Z
 * parseFeedDate("2025-09-01T14:00:00+02:00")      // 2025-09-01T12:00:00.000Z
 * parseFeedDate("2025-09-01")                     // 2025-09-01T00:00:00.000Z
 * parseFeedDate("yesterday")                      // undefined
 */
export function parseFeedDate(value: string | undefined): Date | undefined {
  const text = value?.trim().replace(/\s+/g, " ");
  if (!text) return undefined;
  return fromIso(text) ?? fromRfc822(text);
}
