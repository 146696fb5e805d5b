import { describe, expect, it } from "vitest";
import { rangeParts } from "./totals";

describe("rangeParts: a range as whole months and the days of partial months", () => {
  it("reads a range inside one month as days", () => {
    expect(rangeParts("2026-03-05", "2026-03-20")).toEqual({
      months: null,
      days: [["2026-03-05", "2026-03-20"]],
    });
    expect(rangeParts("2026-03-05", "2026-03-05")).toEqual({
      months: null,
      days: [["2026-03-05", "2026-03-05"]],
    });
  });

  it("reads a whole month, and whole months, as months", () => {
    expect(rangeParts("2026-02-01", "2026-02-28")).toEqual({
      months: ["2026-02", "2026-02"],
      days: [],
    });
    expect(rangeParts("2024-02-01", "2024-02-29")).toEqual({
      months: ["2024-02", "2024-02"],
      days: [],
    });
    expect(rangeParts("2025-12-01", "2026-11-30")).toEqual({
      months: ["2025-12", "2026-11"],
      days: [],
    });
  });

  it("splits partial months at both ends", () => {
    expect(rangeParts("2025-12-28", "2026-12-27")).toEqual({
      months: ["2026-01", "2026-11"],
      days: [
        ["2025-12-28", "2025-12-31"],
        ["2026-12-01", "2026-12-27"],
      ],
    });
    expect(rangeParts("2026-01-31", "2026-03-01")).toEqual({
      months: ["2026-02", "2026-02"],
      days: [
        ["2026-01-31", "2026-01-31"],
        ["2026-03-01", "2026-03-01"],
      ],
    });
  });

  it("has no whole month between two adjacent partial months", () => {
    expect(rangeParts("2026-01-15", "2026-02-10")).toEqual({
      months: null,
      days: [
        ["2026-01-15", "2026-01-31"],
        ["2026-02-01", "2026-02-10"],
      ],
    });
    expect(rangeParts("2026-01-01", "2026-02-10")).toEqual({
      months: ["2026-01", "2026-01"],
      days: [["2026-02-01", "2026-02-10"]],
    });
  });
});
