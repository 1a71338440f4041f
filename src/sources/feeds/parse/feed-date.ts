// Dates as feeds write them. The formats name RFC 822 (RSS 2.0), RFC 3339 (Atom, JSON Feed) and
// W3CDTF (RSS 1.0's dc:date); real feeds also write what their software's date library prints:
// asctime, Ruby's and Twitter's "Mon Jan 02 15:04:05 +0000 2006", JavaScript's Date.toString()
// with "GMT+0200 (CEST)", zone names of every continent, a comma left out or put in. Two readers:
// an anchored expression for the ISO 8601 family, and a tokenizer for the textual forms, whose
// words are looked up in the tables below. Both walk the text once, and a text longer than any
// date is no date, so a hostile feed cannot make either slow.
//
// What cannot be read is no date: never the time of reading, which would make an archive entry look
// new. A time without a zone, or with a zone name we do not know, is read as UTC: off by some hours
// at worst, where no date at all would lose the entry's age. Date.parse is not used: it reads a
// zone-less time in the machine's own zone and what it accepts beyond ISO 8601 differs by engine.

/** Longer than any form below, even with a long zone comment; past this it is not a date. */
const MAX_LENGTH = 200;

const MONTHS: Record<string, number> = {
  jan: 0,
  january: 0,
  feb: 1,
  february: 1,
  mar: 2,
  march: 2,
  apr: 3,
  april: 3,
  may: 4,
  jun: 5,
  june: 5,
  jul: 6,
  july: 6,
  aug: 7,
  august: 7,
  sep: 8,
  sept: 8,
  september: 8,
  oct: 9,
  october: 9,
  nov: 10,
  november: 10,
  dec: 11,
  december: 11,
};

const DAY_NAMES = new Set(
  "mon monday tue tues tuesday wed weds wednesday thu thur thurs thursday fri friday sat saturday sun sunday".split(
    " ",
  ),
);

/**
 * Zone names and their offsets in minutes east of UTC. RFC 822 §5.1's (UT, GMT, Z and the US
 * zones), the other US and Canadian ones, and the abbreviations European, Asian and Australian
 * software prints (MET/MEST and the German MEZ/MESZ among them). Where an abbreviation means
 * several zones, the one date libraries print it for: CST is US Central (RFC 822), IST is India's
 * (as Java's short zone ids have it). RFC 2822 §4.3 reads the military letters as UTC, since RFC
 * 822 defined them with the wrong sign; any other name is read as UTC too (see offsetOf).
 */
const ZONES: Record<string, number> = {
  ut: 0,
  utc: 0,
  uct: 0,
  gmt: 0,
  z: 0,
  zulu: 0,
  "etc/utc": 0,
  "etc/uct": 0,
  "etc/gmt": 0,
  "etc/zulu": 0,
  at: -240,
  est: -300,
  edt: -240,
  et: -300,
  cst: -360,
  cdt: -300,
  ct: -360,
  mst: -420,
  mdt: -360,
  mt: -420,
  pst: -480,
  pdt: -420,
  pt: -480,
  akst: -540,
  akdt: -480,
  hst: -600,
  hdt: -540,
  ast: -240,
  adt: -180,
  nst: -210,
  ndt: -150,
  wet: 0,
  west: 60,
  bst: 60,
  cet: 60,
  cest: 120,
  met: 60,
  mest: 120,
  mez: 60,
  mesz: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  ist: 330,
  pkt: 300,
  wib: 420,
  ict: 420,
  hkt: 480,
  sgt: 480,
  pht: 480,
  awst: 480,
  jst: 540,
  kst: 540,
  acst: 570,
  acdt: 630,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
};

/** Names after which a signed number is the offset itself: "GMT+02:00", "UTC-5". */
const OFFSET_PREFIXES = new Set(["gmt", "utc", "ut"]);
/** The tz database's Etc/GMT+5 is five hours *behind* UTC (POSIX signs). */
const POSIX_PREFIX = "etc/gmt";

// RFC 3339, W3CDTF (a year, a month, a date, a time without seconds), ISO 8601's basic form
// (20250901T120000Z), and microformats' looser forms (a space for the "T", an offset without a
// colon or with hours alone), and the month Google's feeds once wrote with three digits
// ("2003-012-31"). Anchored, and no two parts can match the same characters.
const ISO_EXTENDED =
  /^(\d{4})(?:-(\d{2}|0\d{2}(?=-))(?:-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)? ?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/;
const ISO_BASIC =
  /^(\d{4})(\d{2})(\d{2})(?:[Tt](\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?:\d{2})?)?)?$/;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millis: number;
  /** Minutes east of UTC. */
  offset: number;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 1 && leap ? 29 : (DAYS_IN_MONTH[month] ?? 0);
}

function build(parts: Parts): Date | undefined {
  const { year, month, day, hour, minute, second, millis, offset } = parts;
  if (month < 0 || month > 11 || day < 1 || hour > 24 || minute > 59 || second > 60) return undefined;
  if (hour === 24 && (minute > 0 || second > 0 || millis > 0)) return undefined;
  if (Math.abs(offset) > 23 * 60 + 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC: years 0–99 are years, not 1900–1999.
  at.setUTCFullYear(year, month, day);
  // A leap second is read as the last second of its minute.
  at.setUTCHours(hour, minute, Math.min(second, 59), millis);
  const time = at.getTime() - offset * 60_000;
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** "+02:00", "-0500", "+02", "+5", "+530": minutes east of UTC, or undefined when not an offset. */
function numericOffset(sign: string, digits: string): number | undefined {
  const [hours, minutes] =
    digits.length <= 2
      ? [Number(digits), 0]
      : [Number(digits.slice(0, digits.length - 2)), Number(digits.slice(-2))];
  if (hours > 23 || minutes > 59) return undefined;
  return (sign === "-" ? -1 : 1) * (hours * 60 + minutes);
}

function millisOf(fraction: string | undefined): number {
  return fraction ? Math.min(999, Math.floor(Number(`0.${fraction}`) * 1000 + 1e-6)) : 0;
}

function fromIso(text: string): Date | undefined {
  const match = ISO_EXTENDED.exec(text) ?? ISO_BASIC.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  let offset = 0;
  if (zone && zone !== "Z" && zone !== "z") {
    const found = numericOffset(zone.slice(0, 1), zone.slice(1).replace(":", ""));
    // Stryker disable next-line ConditionalExpression: an undefined offset would make build's time NaN, which answers undefined all the same; the check says so here.
    if (found === undefined) return undefined;
    offset = found;
  }
  return build({
    year: Number(year),
    month: Number(month ?? "1") - 1,
    day: Number(day ?? "1"),
    hour: Number(hour ?? "0"),
    minute: Number(minute ?? "0"),
    second: Number(second ?? "0"),
    millis: millisOf(fraction),
    offset,
  });
}

type Token =
  | { kind: "number"; text: string }
  | { kind: "date"; year: number; month: number; day: number }
  | { kind: "time"; hour: number; minute: number; second: number; millis: number }
  | { kind: "offset"; sign: string; digits: string }
  | { kind: "word"; text: string }
  | { kind: "comment"; text: string };

const isDigit = (char: string) => char >= "0" && char <= "9";
const isLetter = (char: string) => (char >= "a" && char <= "z") || (char >= "A" && char <= "Z");

/** The run of characters from `start` that pass `test`: its end. */
function runEnd(text: string, start: number, test: (char: string) => boolean): number {
  let end = start;
  while (end < text.length && test(text.charAt(end))) end += 1;
  return end;
}

/**
 * The text as tokens, or undefined at a character no date form has. One pass: every branch moves
 * past what it read. A "-" is a sign once a time has been read or right after GMT/UTC ("Jan-2004"
 * is a separator, "15:04:05 -0700" an offset).
 */
function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let sawTime = false;
  let at = 0;
  while (at < text.length) {
    const char = text.charAt(at);
    const previous = tokens[tokens.length - 1];
    if (char === " " || char === "," || char === ".") {
      at += 1;
    } else if (char === "(") {
      const close = text.indexOf(")", at);
      if (close < 0) return undefined;
      tokens.push({
        kind: "comment",
        text: text
          .slice(at + 1, close)
          .trim()
          .toLowerCase(),
      });
      at = close + 1;
    } else if (
      (char === "+" || char === "-") &&
      isDigit(text.charAt(at + 1)) &&
      (char === "+" ||
        sawTime ||
        (previous?.kind === "word" && (OFFSET_PREFIXES.has(previous.text) || previous.text === POSIX_PREFIX)))
    ) {
      const end = runEnd(text, at + 1, isDigit);
      let digits = text.slice(at + 1, end);
      at = end;
      if (digits.length <= 2 && text.charAt(at) === ":" && isDigit(text.charAt(at + 1))) {
        const minutesEnd = runEnd(text, at + 1, isDigit);
        digits += text.slice(at + 1, minutesEnd).padStart(2, "0");
        at = minutesEnd;
      }
      if (digits.length > 4) return undefined;
      tokens.push({ kind: "offset", sign: char, digits });
    } else if (char === "-" || char === "/") {
      at += 1;
    } else if (isDigit(char)) {
      const end = runEnd(text, at, isDigit);
      const digits = text.slice(at, end);
      const date = /^(\d{4})[-/](\d{2})[-/](\d{2})(?![\d:])/.exec(text.slice(at, at + 11));
      if (date && digits.length === 4) {
        tokens.push({
          kind: "date",
          year: Number(date[1]),
          month: Number(date[2]) - 1,
          day: Number(date[3]),
        });
        at += 10;
        // "2025-09-01T12:00:00 GMT": the T that joins a date to its time.
        if ((text.charAt(at) === "T" || text.charAt(at) === "t") && isDigit(text.charAt(at + 1))) at += 1;
      } else if (text.charAt(end) === ":" && digits.length <= 2) {
        const time = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?!\d)/.exec(text.slice(at, at + 22));
        if (!time) return undefined;
        tokens.push({
          kind: "time",
          hour: Number(time[1]),
          minute: Number(time[2]),
          second: Number(time[3] ?? "0"),
          millis: millisOf(time[4]),
        });
        sawTime = true;
        at += time[0].length;
      } else {
        tokens.push({ kind: "number", text: digits });
        at = end;
      }
    } else if (isLetter(char)) {
      // Letters, and the "/" and "_" of tz database names (Etc/GMT, America/New_York).
      const end = runEnd(text, at, (next) => isLetter(next) || next === "/" || next === "_");
      tokens.push({ kind: "word", text: text.slice(at, end).toLowerCase() });
      at = end;
    } else {
      return undefined;
    }
  }
  return tokens;
}

/** What the tokens say, field by field, before the numbers are told apart. */
interface Reading {
  date?: { year: number; month: number; day: number };
  month?: number;
  numbers: string[];
  time?: { hour: number; minute: number; second: number; millis: number };
  meridiem?: "am" | "pm";
  offset?: number;
  /** The offset came from a zone's name: a numeric offset beside it ("EST -0500") says it exactly. */
  offsetNamed: boolean;
  /** A known zone's name follows the offset it names ("-0700 MST"): the offset says it exactly. */
  named: boolean;
}

function offsetOf(token: Extract<Token, { kind: "offset" }>, prefix: string | undefined): number | undefined {
  const offset = numericOffset(token.sign, token.digits);
  return offset !== undefined && prefix === POSIX_PREFIX ? -offset : offset;
}

/** Reads the tokens into fields; undefined when a token has no place (a second month, a stray word). */
function read(tokens: Token[]): Reading | undefined {
  const reading: Reading = { numbers: [], offsetNamed: false, named: false };
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as Token;
    switch (token.kind) {
      case "date":
        if (reading.date || reading.month !== undefined) return undefined;
        reading.date = token;
        break;
      case "time":
        if (reading.time) return undefined;
        reading.time = token;
        break;
      case "number":
        reading.numbers.push(token.text);
        break;
      case "offset": {
        if (reading.offset !== undefined && !reading.offsetNamed) return undefined;
        const previous = tokens[index - 1];
        const offset = offsetOf(token, previous?.kind === "word" ? previous.text : undefined);
        if (offset === undefined) return undefined;
        reading.offset = offset;
        reading.offsetNamed = false;
        break;
      }
      case "comment":
        // RFC 2822's comment after the zone, "(CEST)": the zone when nothing else named it.
        if (reading.offset === undefined && reading.time && ZONES[token.text] !== undefined) {
          reading.offset = ZONES[token.text];
          reading.offsetNamed = true;
        }
        break;
      case "word": {
        const word = token.text;
        const month = MONTHS[word];
        if (month !== undefined && !reading.time) {
          if (reading.month !== undefined || reading.date) return undefined;
          reading.month = month;
        } else if ((DAY_NAMES.has(word) || word === "at") && !reading.time) {
          // The day's name says nothing the date does not; "at" joins a date to its time
          // ("September 7, 2002 at 10:00 AM"). After the time, AT is the Atlantic zone.
        } else if ((word === "am" || word === "pm") && reading.time && !reading.meridiem) {
          reading.meridiem = word;
        } else if (
          (OFFSET_PREFIXES.has(word) || word === POSIX_PREFIX) &&
          tokens[index + 1]?.kind === "offset" &&
          reading.offset === undefined
        ) {
          // "GMT+0200", "Etc/GMT-3": the offset that follows says it (offsetOf reads the prefix).
        } else if (reading.time && reading.offset === undefined) {
          reading.offset = ZONES[word] ?? 0;
          reading.offsetNamed = true;
        } else if (reading.time && !reading.offsetNamed && !reading.named && ZONES[word] !== undefined) {
          // The zone's name after its offset ("-0700 MST"); an unknown word there is not a date's.
          reading.named = true;
        } else {
          return undefined;
        }
      }
    }
  }
  return reading;
}

/** RFC 2822 §4.3: a two-digit year below 50 is in the 2000s, from 50 in the 1900s. */
const fullYear = (digits: string) => {
  const year = Number(digits);
  return digits.length === 2 ? year + (year < 50 ? 2000 : 1900) : year;
};

function fromText(text: string): Date | undefined {
  const tokens = tokenize(text);
  const reading = tokens && read(tokens);
  if (!reading) return undefined;
  let date = reading.date;
  if (!date) {
    // Day, month name and year in any order the forms use ("13 Feb, 2012", "Jan 02 2006", "Jan 4
    // … 2004"): the month is the name, a four-digit number the year, the first other the day and
    // a second one a two-digit year.
    if (reading.month === undefined) return undefined;
    let year: number | undefined;
    let day: number | undefined;
    for (const number of reading.numbers) {
      if (number.length === 4 && year === undefined) year = Number(number);
      else if (number.length <= 2 && day === undefined) day = Number(number);
      else if (number.length === 2 && year === undefined) year = fullYear(number);
      else return undefined;
    }
    if (year === undefined || day === undefined) return undefined;
    date = { year, month: reading.month, day };
  } else if (reading.numbers.length > 0) {
    return undefined;
  }
  const time = reading.time ?? { hour: 0, minute: 0, second: 0, millis: 0 };
  let hour = time.hour;
  if (reading.meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (reading.meridiem === "pm" ? 12 : 0);
  }
  return build({ ...date, ...time, hour, offset: reading.offset ?? 0 });
}

/**
 * A feed's date, or undefined when there is none or it cannot be read. The forms read are listed,
 * each with an example, in docs/feed-formats.md.
 *
 * @example
 * parseFeedDate("Mon, 01 Sep 2025 12:00:00 GMT")              // 2025-09-01T12:00:00.000Z
 * parseFeedDate("2025-09-01T14:00:00+02:00")                  // 2025-09-01T12:00:00.000Z
 * parseFeedDate("Mon Sep 01 2025 14:00:00 GMT+0200 (CEST)")   // 2025-09-01T12:00:00.000Z
 * parseFeedDate("2025-09-01")                                 // 2025-09-01T00:00:00.000Z
 * parseFeedDate("yesterday")                                  // undefined
 */
export function parseFeedDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > MAX_LENGTH) return undefined;
  const text = trimmed.replace(/\s+/g, " ");
  return fromIso(text) ?? fromText(text);
}
