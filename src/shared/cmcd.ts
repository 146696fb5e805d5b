// Common Media Client Data (CTA-5004, CMCD v1 and v2 / CTA-5004-B): its payload is an RFC 8941
// Structured Field Dictionary (`br=(3200 640),bl=(21300),sid="6e2f…",sta=p,su`), carried as one
// line per report in an `application/cmcd` body (event mode), as the `CMCD=` query argument, or
// split over the CMCD-Object, -Request, -Session and -Status headers. This parses a payload into
// plain values and says where a malformed one breaks; what the keys mean is the caller's.
// Written here rather than taken from the Common Media Library (its decoder and the structured
// field library it needs are ~80 KB unminified): the worker's bundle has a budget.

/** A bare item: integer or decimal, string, token (a string marked as one), boolean. */
export type CmcdBare = number | string | boolean | CmcdToken;
/** An item with its parameters (`3200;ot=v`); parameters are kept only where present. */
export interface CmcdItem {
  value: CmcdBare;
  params?: Record<string, CmcdBare>;
}
/** A member's value: an item, or an inner list of items (CMCD v2 `br=(3200 640)`). */
export type CmcdValue = CmcdItem | CmcdItem[];

export class CmcdToken {
  constructor(readonly name: string) {}
  toString() {
    return this.name;
  }
}

/** The header fields a CMCD payload may be split over (their union is one report). */
export const CMCD_HEADERS = ["CMCD-Object", "CMCD-Request", "CMCD-Session", "CMCD-Status"];

export class CmcdSyntaxError extends Error {}

const KEY_START = /[a-zA-Z*]/;
// RFC 8941 keys are lower case; CMCD's custom keys (`com.example-myKey`) may not be.
const KEY_CHAR = /[a-zA-Z0-9_.*-]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9a-zA-Z:/]/;

/** Parses one payload (a dictionary). Throws CmcdSyntaxError naming the character it stopped at. */
export function parseCmcd(input: string): Map<string, CmcdValue> {
  let i = 0;
  const fail = (what: string): never => {
    const shown = i < input.length ? `"${input[i]}"` : "the end";
    throw new CmcdSyntaxError(`at character ${i + 1} (${shown}): ${what}`);
  };
  const spaces = () => {
    while (input[i] === " ") i++;
  };
  const ows = () => {
    while (input[i] === " " || input[i] === "\t") i++;
  };
  const key = (): string => {
    if (!KEY_START.test(input[i] ?? "")) fail("expected a key");
    const start = i;
    while (i < input.length && KEY_CHAR.test(input[i]!)) i++;
    return input.slice(start, i);
  };
  const bare = (): CmcdBare => {
    const c = input[i];
    if (c === '"') {
      let out = "";
      i++;
      for (;;) {
        const ch = input[i++];
        if (ch === undefined) {
          i--;
          fail("a string is not closed");
        }
        if (ch === '"') return out;
        if (ch === "\\") {
          const next = input[i++];
          if (next !== '"' && next !== "\\") {
            i--;
            fail('only \\" and \\\\ may be escaped in a string');
          }
          out += next;
        } else if (ch! < " " || ch! > "~") {
          i--;
          fail("a string holds only printable ASCII");
        } else out += ch;
      }
    }
    if (c === "?") {
      const b = input[i + 1];
      if (b !== "0" && b !== "1") {
        i++;
        fail("a boolean is ?0 or ?1");
      }
      i += 2;
      return b === "1";
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      const m = /^-?(\d{1,15})(\.\d{1,3})?/.exec(input.slice(i));
      if (!m) fail("expected a number");
      i += m![0].length;
      return Number(m![0]);
    }
    if (c === ":") {
      const end = input.indexOf(":", i + 1);
      if (end < 0) fail("a byte sequence is not closed");
      const value = input.slice(i + 1, end);
      i = end + 1;
      return value;
    }
    if (c !== undefined && (KEY_START.test(c) || c === "*")) {
      const start = i;
      while (i < input.length && TOKEN_CHAR.test(input[i]!)) i++;
      return new CmcdToken(input.slice(start, i));
    }
    return fail("expected a value (number, string, token or boolean)");
  };
  const params = (): Record<string, CmcdBare> | undefined => {
    let out: Record<string, CmcdBare> | undefined;
    while (input[i] === ";") {
      i++;
      spaces();
      const name = key();
      let value: CmcdBare = true;
      if (input[i] === "=") {
        i++;
        value = bare();
      }
      (out ??= {})[name] = value;
    }
    return out;
  };
  const item = (): CmcdItem => {
    const value = bare();
    const p = params();
    return p ? { value, params: p } : { value };
  };

  const dict = new Map<string, CmcdValue>();
  ows();
  if (i >= input.length) return dict;
  for (;;) {
    const name = key();
    let value: CmcdValue;
    if (input[i] === "=") {
      i++;
      if (input[i] === "(") {
        i++;
        const list: CmcdItem[] = [];
        for (;;) {
          spaces();
          if (input[i] === ")") {
            i++;
            break;
          }
          list.push(item());
          if (input[i] !== " " && input[i] !== ")") fail("items of a list are separated by spaces");
        }
        params(); // an inner list's own parameters: CMCD defines none
        value = list;
      } else value = item();
    } else {
      const p = params();
      value = p ? { value: true, params: p } : { value: true };
    }
    dict.set(name, value);
    ows();
    if (i >= input.length) return dict;
    if (input[i] !== ",") fail('expected "," between members');
    i++;
    ows();
    if (i >= input.length) fail("a trailing comma");
  }
}

/** The first item of a value (a scalar, or the first of a list). */
export function firstItem(value: CmcdValue | undefined): CmcdItem | undefined {
  return Array.isArray(value) ? value[0] : value;
}
