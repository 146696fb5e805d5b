// Odd values: strings of every awkward family (Unicode, control characters, broken encodings,
// SQL and FTS5 syntax, path traversal) and raw JSON text, for the mutations.
export const UNICODE = [
  "😀",
  "👨‍👩‍👧‍👦",
  "\u202Eevil\u202C",
  "\u202Egpj.exe",
  "e\u0301\u0302\u0303\u0304\u0305",
  "Z\u0334\u0321\u0322\u031b\u0354a\u0336l\u0337g\u0335o",
  "日本語テキスト",
  "\uFEFFbom",
  "zero\u200Bwidth",
  "\u{1D57F}\u{1D58A}\u{1D598}\u{1D599}",
  "\uD800",
  "\uDFFF",
  "\uFFFF",
  "\uFFFD",
  "İstanbul",
  "ßﬃ",
  "مرحبا",
  "\u0085\u2028\u2029",
];
export const CONTROL = [
  "\u0001",
  "\u001f",
  "\u007f",
  "a\u0008b",
  "\u001b[31mred",
  "\r\n",
  "\n",
  "\t",
  "a\rb",
  "\u000b\u000c",
];
export const NUL = ["\u0000", "a\u0000b", "\u0000\u0000\u0000", "demo0001\u0000"];
// Inserted into URLs as they are (not encoded again).
export const PERCENT = [
  "%",
  "%E0%A4%A",
  "%00",
  "%%",
  "%zz",
  "%C0%AF",
  "%FF",
  "%252C",
  "%2C",
  "%7C",
  "%21",
  "%u0041",
  "%E0%A4",
  "%ED%A0%80",
  "%F0%9F%98",
  "a%2",
  "%0D%0AX-Injected:%201",
  "%2e%2e%2f",
  "%5B%7B",
];
export const TRAVERSAL = [
  "../",
  "../../../../etc/passwd",
  "..%2F..%2F",
  "..\\..\\",
  "%2e%2e%2f",
  "....//",
  "/",
  "//",
  "./",
  "..",
  "%2e%2e",
  "a/../b",
  ".%00.",
  "..;/",
];
export const SQL = [
  '"',
  "'",
  "*",
  "NEAR(",
  "OR",
  ")",
  "(",
  "' OR '1'='1",
  '" OR ""="',
  'a" OR b',
  "NEAR(a b, 2)",
  "^a",
  "a:b",
  "-a",
  "{a b}",
  "AND",
  "NOT",
  "a*",
  "*a",
  '"unterminated',
  "'; DROP TABLE contents; --",
  "1; SELECT 1",
  "title:*",
  "a NOT b",
  "a + b",
  "\\",
  "%_",
  "_",
  "a OR b AND c",
  "NEAR/2",
  "a AND",
  "OR OR OR",
  '""',
  "()",
  "x' UNION SELECT sqlite_version() --",
];
export const NUMBERS = [
  "0",
  "-1",
  "2147483647",
  "2147483648",
  "-2147483649",
  "4294967296",
  "9007199254740992",
  "9007199254740993",
  "1e308",
  "1e309",
  "-1e308",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "0x1A",
  "1.5",
  "01",
  "1_000",
  "+1",
  " 1",
  "1 ",
  "١٢٣",
  "0.0000001",
  "99999999999999999999999",
  "1e-400",
];
export const TYPE_WORDS = [
  "true",
  "false",
  "null",
  "undefined",
  "[]",
  "{}",
  "[1,2]",
  '{"a":1}',
  "__proto__",
  "constructor",
  "toString",
];
export const MISC = [
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "%s%s%n",
  "{{7*7}}",
  "javascript:alert(1)",
  "file:///etc/passwd",
  "http://169.254.169.254/",
  " ",
  "   ",
  "\t",
  " a ",
];

/** A string of about `bytes` UTF-8 bytes. */
export function longString(rng, bytes) {
  const unit = rng.pick(["a", "é", "😀", "%", ",", "|", "a,", "a|", " ", "x"]);
  return unit.repeat(Math.max(1, Math.floor(bytes / Buffer.byteLength(unit))));
}

export function longLength(rng) {
  return rng.weighted([
    [4, rng.int(201, 2100)],
    [3, rng.int(2101, 20_000)],
    [2, rng.int(20_001, 60_000)],
    [1, 100_000],
  ]);
}

/** One odd string and the name of its family. raw: insert into a URL without encoding. */
export function nastyString(rng) {
  const family = rng.weighted([
    [1, "empty"],
    [2, "long"],
    [3, "unicode"],
    [2, "control"],
    [1, "nul"],
    [3, "percent"],
    [2, "traversal"],
    [3, "sql"],
    [3, "number"],
    [1, "typeword"],
    [1, "misc"],
  ]);
  switch (family) {
    case "empty":
      return { family, value: "" };
    case "long":
      return { family, value: longString(rng, longLength(rng)) };
    case "unicode":
      return { family, value: rng.pick(UNICODE) };
    case "control":
      return { family, value: rng.pick(CONTROL) };
    case "nul":
      return { family, value: rng.pick(NUL) };
    case "percent":
      return { family, value: rng.pick(PERCENT), raw: rng.chance(0.7) };
    case "traversal":
      return { family, value: rng.pick(TRAVERSAL), raw: rng.chance(0.5) };
    case "sql":
      return { family, value: rng.pick(SQL) };
    case "number":
      return { family, value: rng.pick(NUMBERS) };
    case "typeword":
      return { family, value: rng.pick(TYPE_WORDS) };
    default:
      return { family, value: rng.pick(MISC) };
  }
}

// JSON values that a string (or number, ...) field should not be; RAW tokens are spliced into the
// JSON text as they are (1e400 parses to Infinity, -0, 2^53+1 loses precision).
export const RAW_JSON_NUMBERS = [
  "0",
  "-1",
  "2147483648",
  "9007199254740993",
  "1e308",
  "1e400",
  "-1e400",
  "-0",
  "1.5",
  "0.1e-400",
  "123456789012345678901234567890",
];

export function nastyJsonValue(rng, ctx) {
  return rng.weighted([
    [4, () => nastyString(rng).value],
    [2, () => rawJson(ctx, rng.pick(RAW_JSON_NUMBERS))],
    [1, () => true],
    [1, () => false],
    [2, () => null],
    [1, () => []],
    [1, () => ({})],
    [1, () => [rng.pick(["a", 1, null, {}])]],
    [1, () => ({ a: 1, __proto__x: "y" })],
    [1, () => rawJson(ctx, deepJson(rng, rng.pick([200, 1000, 1000, 5000])))],
    [
      1,
      () =>
        Array.from({ length: rng.pick([1000, 5000]) }, (_, i) => (rng.chance(0.5) ? `v${i}` : i)),
    ],
  ])();
}

export function deepJson(rng, depth) {
  return rng.chance(0.5)
    ? "[".repeat(depth) + "]".repeat(depth)
    : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** A marker string standing for raw JSON text; serializeJson splices it back. */
export function rawJson(ctx, text) {
  const id = `\u0001RAW${ctx.raw.length}\u0001`;
  ctx.raw.push(text);
  return id;
}

export function serializeJson(value, ctx) {
  let text = JSON.stringify(value);
  if (text === undefined) return "";
  if (ctx.raw.length)
    text = text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_, n) => ctx.raw[Number(n)]);
  return text;
}
