// UTC days of statistics (spec 1): events count on the UTC day of their timestamp; report
// ranges are inclusive YYYY-MM-DD days; a row's `date` is the end of its UTC day.
import { invalid } from "./errors";

export const DAY_MS = 86_400_000;
/** Longest report range, inclusive at both ends (docs/design.md: over 366 days is a 400). */
export const MAX_RANGE_DAYS = 366;

/** 'YYYY-MM-DD' of the UTC day containing the instant. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** First and last day of the month of a 'YYYY-MM-DD' day. */
export function monthBounds(day: string): [string, string] {
  const y = Number(day.slice(0, 4));
  const m = Number(day.slice(5, 7)) - 1;
  return [utcDay(Date.UTC(y, m, 1)), utcDay(Date.UTC(y, m + 1, 0))];
}

/** The `date` of a statistics row: the end of its UTC day. */
export function endOfDay(day: string): string {
  return `${day}T23:59:59.000Z`;
}

/** Milliseconds of 00:00 UTC of a 'YYYY-MM-DD' day, or null when it is no calendar date. */
export function dayStart(day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d)
    return null;
  return ms;
}

export function isCalendarDay(day: string): boolean {
  return dayStart(day) !== null;
}

export interface DayRange {
  start: string;
  end: string;
  days: number;
}

/** Checks an inclusive range of valid days: end not before start, at most MAX_RANGE_DAYS days. */
export function dayRange(
  start: string,
  end: string,
  names: { start: string; end: string },
): DayRange {
  const from = dayStart(start);
  const to = dayStart(end);
  if (from === null) throw invalid(`${names.start}: must be a date YYYY-MM-DD`);
  if (to === null) throw invalid(`${names.end}: must be a date YYYY-MM-DD`);
  if (to < from) throw invalid(`${names.end}: must not be before ${names.start}`);
  const days = (to - from) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS) {
    throw invalid(
      `${names.end}: the range from ${names.start} to ${names.end} is ${days} days; at most ${MAX_RANGE_DAYS} are allowed`,
    );
  }
  return { start, end, days };
}

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/**
 * Milliseconds since the epoch of an ISO 8601 timestamp that carries its offset (Z or ±hh:mm),
 * or null when it is not one. Parsed by hand: Date.parse accepts much more than ISO 8601 and
 * reads a timestamp without an offset as local time.
 */
export function parseTimestamp(value: string): number | null {
  const m = ISO_WITH_OFFSET.exec(value);
  if (!m) return null;
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  if (h > 23 || mi > 59 || s > 59) return null;
  const midnight = dayStart(`${m[1]}-${m[2]}-${m[3]}`);
  if (midnight === null) return null;
  let offsetMinutes = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 14 || om > 59) return null;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  return midnight + ((h * 60 + mi - offsetMinutes) * 60 + s) * 1000 + ms;
}

/**
 * A UTC day is closed to new events once it ended more than `eventsMaxAgeDays` + 1 days ago
 * (the ingestion refuses older timestamps): reports ending on one are cached for longer.
 */
export function isClosedDay(day: string, nowMs: number, eventsMaxAgeDays: number): boolean {
  const start = dayStart(day);
  return start !== null && start + DAY_MS < nowMs - (eventsMaxAgeDays + 1) * DAY_MS;
}
