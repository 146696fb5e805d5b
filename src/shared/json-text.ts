// JSON text put together from parts already serialized: a large document whose items were
// rendered once (a feed file of 1,000 records, each shared by many feeds) is a concatenation,
// not a JSON.stringify of the whole. The text equals JSON.stringify of the same object, so a
// hash of it is the same as before.

/** JSON.stringify({ ...head, [field]: items }) where each item is already JSON text. */
export function objectWithArray(
  head: Record<string, unknown>,
  field: string,
  items: readonly string[],
): string {
  const array = `${JSON.stringify(field)}:[${items.join(",")}]`;
  const start = JSON.stringify(head);
  return start === "{}" ? `{${array}}` : `${start.slice(0, -1)},${array}}`;
}

/** JSON.stringify({ ...JSON.parse(json), [field]: value }) for an object's text whose keys do not include `field`. */
export function withField(json: string, field: string, value: unknown): string {
  const entry = `${JSON.stringify(field)}:${JSON.stringify(value)}`;
  return json === "{}" ? `{${entry}}` : `${json.slice(0, -1)},${entry}}`;
}

/**
 * The inverse of withField for the field it added last: `json` without its final `field` entry
 * (null when the text does not end with one). A field's name in quotes cannot occur inside a
 * JSON string, whose quotes are escaped.
 */
export function withoutLastField(json: string, field: string): string | null {
  const entry = json.lastIndexOf(`${JSON.stringify(field)}:`);
  if (entry <= 0 || !json.endsWith("}")) return null;
  const before = json[entry - 1];
  if (before === ",") return `${json.slice(0, entry - 1)}}`;
  return before === "{" ? "{}" : null;
}

const ASCII = /^[\x00-\x7f]*$/;

/** The UTF-8 length of a string, counted without encoding it. */
export function utf8Length(s: string): number {
  // ASCII text (most JSON here) is its length: the native regex scan beats the loop below.
  if (ASCII.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Each code unit counted once already: 2 bytes below U+0800, 3 above, 4 per surrogate pair (2 + 2).
    if (c >= 0x80) n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
  }
  return n;
}
