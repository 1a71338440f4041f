// Every date form real feeds write, each with the instant it must give: the forms of the
// specifications (RFC 822/2822/5322 with their examples and obsolete syntax, RFC 3339, W3CDTF,
// ISO 8601's basic form), what date libraries print (asctime, Ruby, Go, Java, JavaScript's
// Date.toString(), Python), what feed readers document reading (a comma without its space, zone
// names of every continent, Etc/GMT, GMT+02:00), and what is no date. The table is the one in
// docs/feed-formats.md. A hostile date (a megabyte of it) is answered at once, in a worker so that
// a parser that hung would fail the test instead of stopping the run.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { parseFeedDate } from "./feed-date.ts";

type Row = [form: string, text: string, instant: string];

const TABLE: Record<string, Row[]> = {
  "RFC 822, 2822 and 5322, with their own examples": [
    ["RSS 2.0's example, GMT", "Sat, 07 Sep 2002 00:00:01 GMT", "2002-09-07T00:00:01.000Z"],
    ["numeric zone +0000", "Sat, 07 Sep 2002 00:00:01 +0000", "2002-09-07T00:00:01.000Z"],
    ["RFC 2822 A.1.1, -0600", "Fri, 21 Nov 1997 09:55:06 -0600", "1997-11-21T15:55:06.000Z"],
    ["RFC 2822 A.1.2, one-digit day, +0200", "Tue, 1 Jul 2003 10:52:37 +0200", "2003-07-01T08:52:37.000Z"],
    ["RFC 2822 A.1.3, -0330 across midnight", "Thu, 13 Feb 1969 23:32:54 -0330", "1969-02-14T03:02:54.000Z"],
    [
      "RFC 2822 A.5, obsolete: no day name, two-digit year",
      "21 Nov 97 09:55:06 GMT",
      "1997-11-21T09:55:06.000Z",
    ],
    [
      "RFC 2822 A.6.3, a comment after the zone",
      "Thu, 13 Feb 1969 23:32 -0330 (Newfoundland Time)",
      "1969-02-14T03:02:00.000Z",
    ],
    [
      "-0000: UTC, local zone unknown (RFC 2822 §3.3)",
      "Fri, 21 Nov 1997 09:55:06 -0000",
      "1997-11-21T09:55:06.000Z",
    ],
    ["no seconds", "Fri, 21 Nov 1997 09:55 EST", "1997-11-21T14:55:00.000Z"],
    ["UT", "Fri, 21 Nov 1997 09:55:06 UT", "1997-11-21T09:55:06.000Z"],
    ["EDT", "Fri, 21 Nov 1997 09:55:06 EDT", "1997-11-21T13:55:06.000Z"],
    ["CST", "Fri, 21 Nov 1997 09:55:06 CST", "1997-11-21T15:55:06.000Z"],
    ["CDT", "Fri, 21 Nov 1997 09:55:06 CDT", "1997-11-21T14:55:06.000Z"],
    ["MST", "Fri, 21 Nov 1997 09:55:06 MST", "1997-11-21T16:55:06.000Z"],
    ["MDT", "Fri, 21 Nov 1997 09:55:06 MDT", "1997-11-21T15:55:06.000Z"],
    ["PST", "Fri, 21 Nov 1997 09:55:06 PST", "1997-11-21T17:55:06.000Z"],
    ["PDT", "Fri, 21 Nov 1997 09:55:06 PDT", "1997-11-21T16:55:06.000Z"],
    ["military Z", "Fri, 21 Nov 1997 09:55:06 Z", "1997-11-21T09:55:06.000Z"],
    ["military A, read as UTC (RFC 2822 §4.3)", "Fri, 21 Nov 1997 09:55:06 A", "1997-11-21T09:55:06.000Z"],
    ["two-digit year 49 is 2049", "07 Sep 49 00:00 GMT", "2049-09-07T00:00:00.000Z"],
    ["two-digit year 50 is 1950", "07 Sep 50 00:00 GMT", "1950-09-07T00:00:00.000Z"],
    ["a year before 1000", "Thu, 01 Jan 0100 00:00:01 +0100", "0099-12-31T23:00:01.000Z"],
  ],
  "HTTP's three forms (RFC 9110 §5.6.7)": [
    ["IMF-fixdate", "Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37.000Z"],
    ["RFC 850, dashes and a two-digit year", "Sunday, 06-Nov-94 08:49:37 GMT", "1994-11-06T08:49:37.000Z"],
    ["asctime, day padded with a space", "Sun Nov  6 08:49:37 1994", "1994-11-06T08:49:37.000Z"],
  ],
  "RFC 822 as feeds really write it": [
    ["no space after the comma", "Sat,07 Sep 2002 00:00:01 GMT", "2002-09-07T00:00:01.000Z"],
    ["full day and month names", "Saturday, 07 September 2002 00:00:01 GMT", "2002-09-07T00:00:01.000Z"],
    ["four-letter Sept", "Sat, 07 Sept 2002 00:00:01 GMT", "2002-09-07T00:00:01.000Z"],
    ["lower case", "sat, 07 sep 2002 00:00:01 gmt", "2002-09-07T00:00:01.000Z"],
    ["abbreviations with periods", "Sat., 07 Sep. 2002 00:00:01 GMT", "2002-09-07T00:00:01.000Z"],
    ["one-digit hour", "Sat, 07 Sep 2002 9:05:01 GMT", "2002-09-07T09:05:01.000Z"],
    ["a colon in the offset", "Sat, 07 Sep 2002 02:00:01 +02:00", "2002-09-07T00:00:01.000Z"],
    ["no zone (read as UTC)", "Sat, 07 Sep 2002 00:00:01", "2002-09-07T00:00:01.000Z"],
    ["fractional seconds", "Sat, 07 Sep 2002 00:00:01.250 GMT", "2002-09-07T00:00:01.250Z"],
    ["dashes between day, month and year", "07-Sep-2002 00:00:01 GMT", "2002-09-07T00:00:01.000Z"],
    ["12-hour clock, AM", "Sat, 07 Sep 2002 12:00:01 AM GMT", "2002-09-07T00:00:01.000Z"],
    ["12-hour clock, PM and a zone", "Sat, 07 Sep 2002 01:30 PM EST", "2002-09-07T18:30:00.000Z"],
    ["a date alone", "07 Sep 2002", "2002-09-07T00:00:00.000Z"],
    ["a day name and a date, no time", "Thu, 01 Jan 2004", "2004-01-01T00:00:00.000Z"],
    ["a comma after the month, with a time", "Mon, 13 Feb, 2012 06:28:00 UTC", "2012-02-13T06:28:00.000Z"],
    ['"at" before the time (WordPress)', "September 7, 2002 at 10:00 AM", "2002-09-07T10:00:00.000Z"],
    ["a comma after the month", "13 Feb, 2012", "2012-02-13T00:00:00.000Z"],
    ["month first, US style", "Feb 13, 2012 10:30 AM", "2012-02-13T10:30:00.000Z"],
    ["month first, full name, no time", "February 13, 2012", "2012-02-13T00:00:00.000Z"],
    ["an offset and the zone's name", "Sat, 07 Sep 2002 02:00:01 +0200 CEST", "2002-09-07T00:00:01.000Z"],
    [
      "an offset and the zone's name as a comment",
      "Sat, 07 Sep 2002 01:00:01 +0100 (CET)",
      "2002-09-07T00:00:01.000Z",
    ],
    ["a zone's name, then its offset", "Sat, 07 Sep 2002 01:00:01 CET +0100", "2002-09-07T00:00:01.000Z"],
  ],
  "zones by name and by GMT offset": [
    ["an unknown zone name is UTC", "Sat, 07 Sep 2002 00:00:01 XYZ", "2002-09-07T00:00:01.000Z"],
    [
      "an unknown tz database name is UTC",
      "Sat, 07 Sep 2002 00:00:01 Europe/Berlin",
      "2002-09-07T00:00:01.000Z",
    ],
    ["Etc/GMT", "Sat, 07 Sep 2002 00:00:01 Etc/GMT", "2002-09-07T00:00:01.000Z"],
    [
      "Etc/GMT+5, five hours behind (POSIX sign)",
      "Sat, 07 Sep 2002 00:00:01 Etc/GMT+5",
      "2002-09-07T05:00:01.000Z",
    ],
    ["Etc/GMT-3, three hours ahead", "Sat, 07 Sep 2002 03:00:01 Etc/GMT-3", "2002-09-07T00:00:01.000Z"],
    ["GMT+hh:mm", "Sat, 07 Sep 2002 02:00:01 GMT+02:00", "2002-09-07T00:00:01.000Z"],
    ["GMT-hhmm", "Sat, 07 Sep 2002 00:00:01 GMT-0500", "2002-09-07T05:00:01.000Z"],
    ["GMT-hh:mm with odd minutes", "Wed, 19 Feb 2012 22:40:00 GMT-01:01", "2012-02-19T23:41:00.000Z"],
    ["AT (Atlantic, after the time)", "Mon, 26 January 2004 16:31:00 AT", "2004-01-26T20:31:00.000Z"],
    ["ET (US Eastern, generic)", "Mon, 26 January 2004 16:31:00 ET", "2004-01-26T21:31:00.000Z"],
    ["PT (US Pacific, generic)", "Mon, 26 January 2004 16:31:00 PT", "2004-01-27T00:31:00.000Z"],
    ["UTC+h", "Sat, 07 Sep 2002 01:00:01 UTC+1", "2002-09-07T00:00:01.000Z"],
    ["GMT +hh:mm with a space", "Sat, 07 Sep 2002 05:30:01 GMT +05:30", "2002-09-07T00:00:01.000Z"],
    ["MET", "Sat, 07 Sep 2002 01:00:01 MET", "2002-09-07T00:00:01.000Z"],
    ["MEST", "Sat, 07 Sep 2002 02:00:01 MEST", "2002-09-07T00:00:01.000Z"],
    ["CET", "Sat, 07 Sep 2002 01:00:01 CET", "2002-09-07T00:00:01.000Z"],
    ["CEST", "Sat, 07 Sep 2002 02:00:01 CEST", "2002-09-07T00:00:01.000Z"],
    ["MEZ (German)", "Sat, 07 Sep 2002 01:00:01 MEZ", "2002-09-07T00:00:01.000Z"],
    ["MESZ (German)", "Sat, 07 Sep 2002 02:00:01 MESZ", "2002-09-07T00:00:01.000Z"],
    ["WET", "Sat, 07 Sep 2002 00:00:01 WET", "2002-09-07T00:00:01.000Z"],
    ["WEST", "Sat, 07 Sep 2002 01:00:01 WEST", "2002-09-07T00:00:01.000Z"],
    ["BST", "Sat, 07 Sep 2002 01:00:01 BST", "2002-09-07T00:00:01.000Z"],
    ["EET", "Sat, 07 Sep 2002 02:00:01 EET", "2002-09-07T00:00:01.000Z"],
    ["EEST", "Sat, 07 Sep 2002 03:00:01 EEST", "2002-09-07T00:00:01.000Z"],
    ["MSK", "Sat, 07 Sep 2002 03:00:01 MSK", "2002-09-07T00:00:01.000Z"],
    ["IST (India)", "Sat, 07 Sep 2002 05:30:01 IST", "2002-09-07T00:00:01.000Z"],
    ["JST", "Sat, 07 Sep 2002 09:00:01 JST", "2002-09-07T00:00:01.000Z"],
    ["AEST", "Sat, 07 Sep 2002 10:00:01 AEST", "2002-09-07T00:00:01.000Z"],
    ["AEDT", "Sat, 07 Sep 2002 11:00:01 AEDT", "2002-09-07T00:00:01.000Z"],
    ["ACST, a half hour", "Sat, 07 Sep 2002 09:30:01 ACST", "2002-09-07T00:00:01.000Z"],
    ["NZDT", "Sat, 07 Sep 2002 13:00:01 NZDT", "2002-09-07T00:00:01.000Z"],
    ["AKST", "Fri, 06 Sep 2002 15:00:01 AKST", "2002-09-07T00:00:01.000Z"],
    ["HST", "Fri, 06 Sep 2002 14:00:01 HST", "2002-09-07T00:00:01.000Z"],
    ["AST (Atlantic)", "Fri, 06 Sep 2002 20:00:01 AST", "2002-09-07T00:00:01.000Z"],
    ["NST (Newfoundland)", "Fri, 06 Sep 2002 20:30:01 NST", "2002-09-07T00:00:01.000Z"],
  ],
  "what date libraries print": [
    ["asctime, one space", "Sun Jan 4 16:29:06 2004", "2004-01-04T16:29:06.000Z"],
    ["asctime, day padded with a space", "Sun Jan  4 16:29:06 2004", "2004-01-04T16:29:06.000Z"],
    [
      "Ruby and Twitter, offset before the year",
      "Mon Jan 02 15:04:05 +0000 2006",
      "2006-01-02T15:04:05.000Z",
    ],
    ["Ruby, a negative offset before the year", "Mon Jan 02 15:04:05 -0700 2006", "2006-01-02T22:04:05.000Z"],
    ["Unix date, zone name before the year", "Mon Jan  2 15:04:05 MST 2006", "2006-01-02T22:04:05.000Z"],
    ["Java's Date.toString()", "Mon Jan 02 15:04:05 CET 2006", "2006-01-02T14:04:05.000Z"],
    ["JavaScript's Date.toString()", "Mon Jan 02 2006 15:04:05 GMT+0200 (CEST)", "2006-01-02T13:04:05.000Z"],
    [
      "JavaScript's Date.toString(), long zone name",
      "Mon Jan 02 2006 15:04:05 GMT+0100 (Central European Standard Time)",
      "2006-01-02T14:04:05.000Z",
    ],
    ["PHP's DATE_COOKIE", "Monday, 02-Jan-2006 15:04:05 UTC", "2006-01-02T15:04:05.000Z"],
    ["Jekyll and Ruby's Time#to_s, spaces", "2006-01-02 15:04:05 +0100", "2006-01-02T14:04:05.000Z"],
    ["Ruby's Time#to_s in UTC", "2006-01-02 15:04:05 UTC", "2006-01-02T15:04:05.000Z"],
    ["Python's str(datetime)", "2006-01-02 15:04:05+00:00", "2006-01-02T15:04:05.000Z"],
    [
      "Python's isoformat() with microseconds",
      "2006-01-02T15:04:05.123456+00:00",
      "2006-01-02T15:04:05.123Z",
    ],
    ["an ISO date and time with a zone name", "2006-01-02T15:04:05 GMT", "2006-01-02T15:04:05.000Z"],
    ["slashes, year first", "2006/01/02 15:04:05", "2006-01-02T15:04:05.000Z"],
    ["Perforce: a day name, slashes and a zone", "Fri, 2006/09/15 08:19:53 EDT", "2006-09-15T12:19:53.000Z"],
    ["MS SQL, an offset of minutes", "2004-07-08 23:56:58 -00:20", "2004-07-09T00:16:58.000Z"],
    ["MS SQL, a tenth of a second", "2004-07-08 23:56:58.0", "2004-07-08T23:56:58.000Z"],
  ],
  "W3CDTF, RFC 3339 and ISO 8601": [
    ["W3CDTF year", "1997", "1997-01-01T00:00:00.000Z"],
    ["W3CDTF year and month", "1997-07", "1997-07-01T00:00:00.000Z"],
    ["W3CDTF complete date", "1997-07-16", "1997-07-16T00:00:00.000Z"],
    ["W3CDTF hours and minutes", "1997-07-16T19:20+01:00", "1997-07-16T18:20:00.000Z"],
    ["W3CDTF seconds", "1997-07-16T19:20:30+01:00", "1997-07-16T18:20:30.000Z"],
    ["W3CDTF fraction", "1997-07-16T19:20:30.45+01:00", "1997-07-16T18:20:30.450Z"],
    ["RFC 3339 §5.8, Z", "1985-04-12T23:20:50.52Z", "1985-04-12T23:20:50.520Z"],
    ["RFC 3339 §5.8, -08:00 across midnight", "1996-12-19T16:39:57-08:00", "1996-12-20T00:39:57.000Z"],
    ["RFC 3339 §5.8, leap second", "1990-12-31T23:59:60Z", "1990-12-31T23:59:59.000Z"],
    ["RFC 3339 §5.8, +00:20", "1937-01-01T12:00:27.87+00:20", "1937-01-01T11:40:27.870Z"],
    ["lower-case t and z", "1985-04-12t23:20:50.52z", "1985-04-12T23:20:50.520Z"],
    ["ISO 8601 basic", "19970716T192030Z", "1997-07-16T19:20:30.000Z"],
    ["ISO 8601 basic with an offset", "19970716T192030+0100", "1997-07-16T18:20:30.000Z"],
    ["ISO 8601 basic date", "19970716", "1997-07-16T00:00:00.000Z"],
    ["an offset in hours alone", "1997-07-16T19:20:30+01", "1997-07-16T18:20:30.000Z"],
    ["an offset without a colon", "1997-07-16T19:20:30+0100", "1997-07-16T18:20:30.000Z"],
    ["a space for the T", "1997-07-16 19:20:30Z", "1997-07-16T19:20:30.000Z"],
    ["no zone (read as UTC)", "1997-07-16T19:20:30", "1997-07-16T19:20:30.000Z"],
    ["nanoseconds", "1997-07-16T19:20:30.123456789Z", "1997-07-16T19:20:30.123Z"],
    ["a decimal comma", "1997-07-16T19:20:30,5Z", "1997-07-16T19:20:30.500Z"],
    ["24:00, the end of the day", "1997-07-16T24:00:00Z", "1997-07-17T00:00:00.000Z"],
    ["Google's three-digit month", "2003-012-31T10:14:55+00:00", "2003-12-31T10:14:55.000Z"],
    [
      "an offset across the end of February, leap year",
      "2004-02-28T18:14:55-08:00",
      "2004-02-29T02:14:55.000Z",
    ],
    [
      "an offset across the end of February, common year",
      "2003-02-28T18:14:55-08:00",
      "2003-03-01T02:14:55.000Z",
    ],
  ],
};

describe("feed dates: every form in the table gives its instant", () => {
  for (const [group, rows] of Object.entries(TABLE)) {
    it(group, () => {
      const wrong = rows
        .map(([form, text, instant]) => ({ form, text, instant, read: parseFeedDate(text)?.toISOString() }))
        .filter((row) => row.read !== row.instant)
        .map(
          (row) =>
            `${row.form}: ${JSON.stringify(row.text)} gave ${row.read ?? "no date"}, not ${row.instant}`,
        );
      assert.deepEqual(wrong, []);
    });
  }
});

describe("feed dates: what is no date", () => {
  // What looks like a date but is not one gives none, while a date with a zone nobody knows is a
  // date (in UTC): the line between the two, row by row.
  const rows: Array<[what: string, text: string, instant: string | undefined]> = [
    ["a word", "yesterday", undefined],
    ["day and month in an order nobody can know", "01/02/2006", undefined],
    ["an unknown month", "Sat, 07 Foo 2002 00:00:01 GMT", undefined],
    ["an unknown zone", "Sat, 07 Sep 2002 00:00:01 FOO", "2002-09-07T00:00:01.000Z"],
    ["a month without its day", "Sep 2002", undefined],
    ["a time alone", "12:00 PM", undefined],
    ["the 29th of February of a common year", "2002-02-29", undefined],
    ["the 29th of February of a leap year", "2004-02-29", "2004-02-29T00:00:00.000Z"],
    ["hour 25", "Sat, 07 Sep 2002 25:00:01 GMT", undefined],
    ["hour 13 PM", "Sat, 07 Sep 2002 13:00:01 PM", undefined],
    ["24:00 and a second", "1997-07-16T24:00:01Z", undefined],
    ["an offset of 99 hours", "Sat, 07 Sep 2002 00:00:01 +9900", undefined],
    ["a stray word before the time", "Sat, 07 Sep 2002 soon 00:00:01 GMT", undefined],
    ["two months", "07 Sep Oct 2002", undefined],
    ["two years", "07 Sep 2002 2003", undefined],
    ["seconds since 1970", "1031356801", undefined],
    ["a comment never closed", "Sat, 07 Sep 2002 00:00:01 +0100 (CET", undefined],
    ["a character no date has", "Sat, 07 Sep 2002 00:00:01 GMT; more", undefined],
    ["a word after the offset that is no zone", "2013-01-28T11:30:00-06:00Textra", undefined],
    ["a time of four parts", "Sun, 16 Dec 2012 1:2:3:4 GMT", undefined],
    ["a letter for the day", "Sun, Dec x 2012 11:47:32 GMT", undefined],
    ["letters for the offset's minutes", "Sun, 16 Dec 2012 11:47:32 +00:zz", undefined],
    ["second 61", "2003-12-31T10:14:61Z", undefined],
    ["minute 61", "2003-12-31T10:61:55Z", undefined],
    ["a five-digit year", "22013", undefined],
    ["a date of four parts", "2013-01-27-01", undefined],
    ["a three-digit month alone", "2003-012", undefined],
  ];
  it("gives none for what is not a date, and UTC for a date in a zone it does not know", () => {
    const wrong = rows
      .map(([what, text, instant]) => ({ what, text, instant, read: parseFeedDate(text)?.toISOString() }))
      .filter((row) => row.read !== row.instant)
      .map((row) => `${row.what}: ${JSON.stringify(row.text)} gave ${row.read ?? "no date"}`);
    assert.deepEqual(wrong, []);
  });
});

describe("feed dates: the edges a slip would move", () => {
  // Each row sits on a line a one-character slip moves (Stryker's survivors, docs/testing.md): a
  // month's last day, the century rule of leap years, the furthest offset, a zone said only in the
  // comment, or before the time, or after its own offset, the longest date read. A date read wrong
  // or lost changes an entry's age (too old to send, or sent as new); a throw here would make the
  // whole feed unreadable.
  const comment = (length: number) => {
    const start = "Mon, 01 Sep 2025 12:00:00 +0000 (";
    return `${start}${"x".repeat(length - start.length - 1)})`;
  };
  const rows: Array<[what: string, text: string, instant: string | undefined]> = [
    ["the 31st of January of a leap year", "2024-01-31T12:00:00Z", "2024-01-31T12:00:00.000Z"],
    ["the 30th of a month of 30 days", "2025-04-30", "2025-04-30T00:00:00.000Z"],
    ["the 31st of a month of 30 days", "2025-04-31", undefined],
    ["the 29th of February 1900: a century is no leap year", "1900-02-29", undefined],
    ["the 29th of February 2000: every fourth century is", "2000-02-29", "2000-02-29T00:00:00.000Z"],
    ["the furthest offset, +23:59", "2025-09-01T23:59:00+23:59", "2025-09-01T00:00:00.000Z"],
    ["an offset of 23 hours", "2025-09-01T23:00:00+23:00", "2025-09-01T00:00:00.000Z"],
    ["NDT, Newfoundland's summer time", "Mon, 01 Sep 2025 12:00:00 NDT", "2025-09-01T14:30:00.000Z"],
    ["the zone only in the comment", "Mon, 01 Sep 2025 14:00:00 (CEST)", "2025-09-01T12:00:00.000Z"],
    ["a month between hyphens", "01-Jan-2004 12:00:00 GMT", "2004-01-01T12:00:00.000Z"],
    ["UTC-5 after a date alone", "2025-09-01 UTC-5", "2025-09-01T05:00:00.000Z"],
    ["Etc/GMT-3 (three hours ahead) after a date alone", "2025-09-01 Etc/GMT-3", "2025-08-31T21:00:00.000Z"],
    ["an offset in two digits before the year", "Mon Sep 01 14:00:00 +02 2025", "2025-09-01T12:00:00.000Z"],
    [
      "Go's default: the offset, then its zone's name",
      "2025-09-01 12:00:00 -0700 MST",
      "2025-09-01T19:00:00.000Z",
    ],
    [
      "a tz database name with an underscore, read as UTC",
      "Mon, 01 Sep 2025 12:00:00 America/New_York",
      "2025-09-01T12:00:00.000Z",
    ],
    ["an offset alone", "+0200", undefined],
    ["a hyphen and a number alone", "-5", undefined],
    ["a date of 200 characters (a long comment)", comment(200), "2025-09-01T12:00:00.000Z"],
    ["a date of 201 characters", comment(201), undefined],
  ];
  it("gives each its instant, or none, and never throws", () => {
    const wrong = rows
      .map(([what, text, instant]) => ({ what, text, instant, read: parseFeedDate(text)?.toISOString() }))
      .filter((row) => row.read !== row.instant)
      .map((row) => `${row.what}: ${JSON.stringify(row.text)} gave ${row.read ?? "no date"}`);
    assert.deepEqual(wrong, []);
  });
});

/** Runs parseFeedDate on each text in a worker, which is ended if it has not answered in 20 s. */
function inWorker(texts: string[]): Promise<Array<string | null>> {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    // The hooks that load our TypeScript, registered in this thread (a worker does not inherit them).
    import(workerData.hooks).then(() => import(workerData.module)).then(({ parseFeedDate }) => {
      parentPort.postMessage(workerData.texts.map((text) => parseFeedDate(text)?.toISOString() ?? null));
    });`;
  const worker = new Worker(code, {
    eval: true,
    workerData: {
      hooks: new URL("../../../../scripts/typescript/register.mjs", import.meta.url).href,
      module: new URL("./feed-date.ts", import.meta.url).href,
      texts,
    },
  });
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      void worker.terminate();
      reject(new Error("parseFeedDate did not answer within 20 s: it hangs on a long date"));
    }, 20_000);
    worker.once("message", (answer: Array<string | null>) => {
      clearTimeout(guard);
      void worker.terminate();
      resolve(answer);
    });
    worker.once("error", (error) => {
      clearTimeout(guard);
      reject(error);
    });
  });
}

describe("feed dates: a hostile date", () => {
  it("a megabyte of date-like text is no date, answered at once, in every shape", async () => {
    const megabyte = 1_000_000;
    const texts = [
      "1".repeat(megabyte),
      "Sat, ".repeat(megabyte / 5),
      `Sat, 07 Sep 2002 00:00:01 ${"+".repeat(megabyte)}`,
      `07 Sep 2002${"-".repeat(megabyte)}x`,
      `2002-09-07T00:00:01${"0".repeat(megabyte)}`,
      `Sat, 07 Sep 2002 00:00:01 GMT (${"(".repeat(megabyte)}`,
      `${" ".repeat(megabyte)}!`,
    ];
    assert.deepEqual(
      await inWorker(texts),
      texts.map(() => null),
    );
  });

  it("a real date padded with a megabyte of whitespace is still read", async () => {
    const padding = " \n\t".repeat(350_000);
    assert.deepEqual(await inWorker([`${padding}Sat, 07 Sep 2002 00:00:01 GMT${padding}`]), [
      "2002-09-07T00:00:01.000Z",
    ]);
  });
});
