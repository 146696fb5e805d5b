// UTC days (spec 1): events count on the UTC day of their instant; ranges are inclusive days.
import { describe, expect, it } from "vitest";
import {
  dayRange,
  dayStart,
  endOfDay,
  isCalendarDay,
  MAX_RANGE_DAYS,
  parseTimestamp,
  utcDay,
} from "./dates";
import { DomainError } from "./errors";

describe("UTC days", () => {
  it("counts an instant on its UTC day, whatever the offset it was written with", () => {
    // The spec's example: 22:00 on the 1st in a zone behind UTC is the 2nd in UTC.
    expect(utcDay(parseTimestamp("2026-11-01T22:00:00-05:00")!)).toBe("2026-11-02");
    expect(utcDay(parseTimestamp("2026-11-02T01:30:00+03:00")!)).toBe("2026-11-01");
    expect(utcDay(parseTimestamp("2026-11-01T23:59:59.999Z")!)).toBe("2026-11-01");
    expect(endOfDay("2026-11-01")).toBe("2026-11-01T23:59:59.000Z");
  });

  it("parses ISO 8601 with an offset only, to the millisecond", () => {
    expect(parseTimestamp("2026-11-01T10:00:00Z")).toBe(Date.UTC(2026, 10, 1, 10));
    expect(parseTimestamp("2026-11-01T10:00:00.123456+0100")).toBe(
      Date.UTC(2026, 10, 1, 9, 0, 0, 123),
    );
    expect(parseTimestamp("2026-11-01T10:00Z")).toBe(Date.UTC(2026, 10, 1, 10));
    for (const bad of [
      "2026-11-01T10:00:00",
      "2026-11-01",
      "2026-02-30T00:00:00Z",
      "2026-11-01T24:00:00Z",
      "2026-11-01T10:00:00+15:00",
      "yesterday",
    ]) {
      expect(parseTimestamp(bad), bad).toBeNull();
    }
  });

  it("knows calendar days, leap years included", () => {
    expect(isCalendarDay("2028-02-29")).toBe(true);
    expect(isCalendarDay("2026-02-29")).toBe(false);
    expect(isCalendarDay("2026-13-01")).toBe(false);
    expect(isCalendarDay("2026-1-01")).toBe(false);
    expect(dayStart("2026-11-01")).toBe(Date.UTC(2026, 10, 1));
  });

  it("accepts inclusive ranges up to the limit and names the parameter otherwise", () => {
    const names = { start: "start_date", end: "end_date" };
    expect(dayRange("2026-01-01", "2026-01-01", names).days).toBe(1);
    expect(dayRange("2028-01-01", "2028-12-31", names).days).toBe(MAX_RANGE_DAYS);
    const fail = (start: string, end: string) => {
      try {
        dayRange(start, end, names);
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        expect((err as DomainError).kind).toBe("invalid");
        return (err as Error).message;
      }
      throw new Error("no error");
    };
    expect(fail("2026-01-02", "2026-01-01")).toBe("end_date: must not be before start_date");
    expect(fail("2026-01-01", "2027-01-02")).toMatch(
      /^end_date: the range .* is 367 days; at most 366/,
    );
    expect(fail("2026-02-30", "2026-03-01")).toBe("start_date: must be a date YYYY-MM-DD");
  });
});
