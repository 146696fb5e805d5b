// E6 filter syntax (spec 4.2): `,` all of, `|` any of (binding tighter), percent-encoded values;
// customFields `[{name:a|b}]` and `[{name:a!b}]`.
import { describe, expect, it } from "vitest";
import { parseAllOfAny, parseCustomFields } from "./filter-syntax";

const message = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("no error");
};

describe("names and search terms", () => {
  it("reads `,` as AND of groups and `|` as OR within a group", () => {
    expect(parseAllOfAny("tags", "a")).toEqual([["a"]]);
    expect(parseAllOfAny("tags", "a,b|c")).toEqual([["a"], ["b", "c"]]);
    expect(parseAllOfAny("tags", "a|b|c")).toEqual([["a", "b", "c"]]);
    expect(parseAllOfAny("tags", " a , b ")).toEqual([["a"], ["b"]]);
  });

  it("decodes each value once more, so separators can be part of a name", () => {
    expect(parseAllOfAny("tags", "rock%2Croll|jazz%7Cblues")).toEqual([
      ["rock,roll", "jazz|blues"],
    ]);
    expect(parseAllOfAny("categories", "Caf%C3%A9")).toEqual([["Café"]]);
  });

  it("names the parameter and the position of a bad value", () => {
    expect(message(() => parseAllOfAny("tags", "a,,b"))).toBe(
      "tags: empty value in group 2, position 1",
    );
    expect(message(() => parseAllOfAny("tags", "a|"))).toBe(
      "tags: empty value in group 1, position 2",
    );
    expect(message(() => parseAllOfAny("events", "%E0%A4%A"))).toMatch(
      /^events: malformed percent-encoding in "%E0%A4%A"$/,
    );
  });

  it("quotes at most a short prefix of a long bad input", () => {
    const long = `%${"x".repeat(5000)}`;
    expect(message(() => parseAllOfAny("tags", long)).length).toBeLessThan(100);
  });
});

describe("customFields", () => {
  it("reads any-of (|), all-of (!) and several fields", () => {
    expect(parseCustomFields("[{season:1|2}]")).toEqual([{ name: "season", values: [["1", "2"]] }]);
    expect(parseCustomFields("[{lang:en!de}]")).toEqual([
      { name: "lang", values: [["en"], ["de"]] },
    ]);
    expect(parseCustomFields("[{a:1},{b:x|y}]")).toEqual([
      { name: "a", values: [["1"]] },
      { name: "b", values: [["x", "y"]] },
    ]);
    expect(parseCustomFields("[{a:1,b:2}]")).toEqual([
      { name: "a", values: [["1"]] },
      { name: "b", values: [["2"]] },
    ]);
    expect(parseCustomFields("[{na%3Ame:v%21al}]")).toEqual([
      { name: "na:me", values: [["v!al"]] },
    ]);
  });

  it("names the position of a syntax error", () => {
    expect(message(() => parseCustomFields("{a:1}"))).toBe(
      `customFields: expected '[' at position 0 of "{a:1}"`,
    );
    expect(message(() => parseCustomFields("[{a:1}"))).toBe(
      `customFields: expected ']' at position 6 of "[{a:1}"`,
    );
    expect(message(() => parseCustomFields("[{:1}]"))).toBe(
      `customFields: expected a field name at position 2 of "[{:1}]"`,
    );
    expect(message(() => parseCustomFields("[{a:}]"))).toBe(
      `customFields: expected a value for a at position 4 of "[{a:}]"`,
    );
    expect(message(() => parseCustomFields("[{a:1}]x"))).toBe(
      `customFields: expected the end of the filter at position 7 of "[{a:1}]x"`,
    );
  });
});
