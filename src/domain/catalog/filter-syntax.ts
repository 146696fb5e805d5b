// E6 filter syntax (spec 4.2).
//   categories, tags, events, searchString:  `,` = all of, `|` = any of.  `a,b|c` = a AND (b OR c):
//     `|` binds tighter than `,`.
//   customFields:  `[{name:v1|v2}]` any value, `[{name:v1!v2}]` all values; several fields
//     (`[{a:1},{b:2}]` or `[{a:1,b:2}]`) must all hold.
// The query parameter arrives URL-decoded; each value is then decoded once more, so a literal
// `,` `|` `!` `:` in a value is sent percent-encoded (`%2C` etc., i.e. `%252C` in the URL).
import type { CustomFieldFilter } from "../../db/catalog";
import { excerpt, invalid } from "../../shared/errors";

/** All groups must hold; within a group any value may match. */
export type AllOfAny = string[][];

function decodeValue(param: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalid(`${param}: malformed percent-encoding in "${excerpt(raw)}"`);
  }
}

/** Bounds of one filter parameter: `,` groups and values in all. */
export const FILTER_LIMITS = { groups: 20, values: 100 };
/** searchString: each term is an FTS5 probe. */
export const SEARCH_LIMITS = { groups: 20, values: 50 };

function checkSize(
  param: string,
  groups: number,
  values: number,
  limits: { groups: number; values: number },
): void {
  if (groups > limits.groups)
    throw invalid(`${param}: at most ${limits.groups} ',' groups, got ${groups}`);
  if (values > limits.values)
    throw invalid(`${param}: at most ${limits.values} values, got ${values}`);
}

export function parseAllOfAny(param: string, input: string, limits = FILTER_LIMITS): AllOfAny {
  const raw = input.split(",");
  checkSize(
    param,
    raw.length,
    raw.reduce((n, g) => n + g.split("|").length, 0),
    limits,
  );
  const groups = raw.map((group, gi) =>
    group.split("|").map((raw, vi) => {
      const value = decodeValue(param, raw.trim());
      if (value === "")
        throw invalid(`${param}: empty value in group ${gi + 1}, position ${vi + 1}`);
      return value;
    }),
  );
  return groups;
}

/** Parses `[{name:v1|v2},{other:x!y}]`; errors name the character position. */
export function parseCustomFields(input: string): CustomFieldFilter[] {
  const s = input.trim();
  let i = 0;
  const fail = (expected: string): never => {
    throw invalid(`customFields: expected ${expected} at position ${i} of "${excerpt(s)}"`);
  };
  const expect = (ch: string) => {
    if (s[i] !== ch) fail(`'${ch}'`);
    i++;
  };
  const readUntil = (stops: string): string => {
    const start = i;
    while (i < s.length && !stops.includes(s[i]!)) i++;
    return s.slice(start, i).trim();
  };
  const filters: CustomFieldFilter[] = [];
  expect("[");
  for (;;) {
    expect("{");
    for (;;) {
      const name = readUntil(":,}]");
      if (!name) fail("a field name");
      expect(":");
      const raw = readUntil(",}]");
      if (!raw) fail(`a value for ${name}`);
      const values = raw.split("!").map((group) =>
        group.split("|").map((v) => {
          const value = decodeValue("customFields", v.trim());
          if (value === "") fail(`a value for ${name}`);
          return value;
        }),
      );
      filters.push({ name: decodeValue("customFields", name), values });
      if (s[i] === ",") {
        i++;
        continue;
      }
      break;
    }
    expect("}");
    if (s[i] === ",") {
      i++;
      continue;
    }
    break;
  }
  expect("]");
  if (i !== s.length) fail("the end of the filter");
  const groups = filters.reduce((n, f) => n + f.values.length, 0);
  checkSize(
    "customFields",
    groups,
    filters.reduce((n, f) => n + f.values.flat().length, 0),
    FILTER_LIMITS,
  );
  return filters;
}
