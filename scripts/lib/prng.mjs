// Seeded randomness for the tools: mulberry32, a small fast PRNG whose whole state is one 32-bit
// word, so a seed (hashed to 32 bits) replays the same stream. The fuzzer draws request i from
// createRng(`${seed}:${i}`); the bulk catalog (scripts/bulk/random.mjs) seeds it its own way.

/** mulberry32 from a 32-bit state: a function returning uniform numbers in [0, 1). */
export function mulberry32(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
export function fnv1a(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The fuzzer's PRNG: mulberry32 over the FNV-1a hash of String(seed), with sampling helpers. */
export function createRng(seed) {
  const next = mulberry32(fnv1a(String(seed)));
  const rng = {
    next,
    /** Integer in [min, max]. */
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    /** entries: [[weight, value], ...] */
    weighted(entries) {
      const total = entries.reduce((n, [w]) => n + w, 0);
      let r = next() * total;
      for (const [w, v] of entries) {
        if ((r -= w) < 0) return v;
      }
      return entries[entries.length - 1][1];
    },
    string(length, alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") {
      let s = "";
      for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      return s;
    },
    bytes(length) {
      const b = Buffer.alloc(length);
      for (let i = 0; i < length; i++) b[i] = Math.floor(next() * 256);
      return b;
    },
    sample(list, n) {
      const copy = [...list];
      const out = [];
      while (copy.length && out.length < n)
        out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]);
      return out;
    },
  };
  return rng;
}
