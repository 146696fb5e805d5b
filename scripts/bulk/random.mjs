// Deterministic randomness for the bulk catalog: a seeded PRNG, string hashing to derive
// independent streams (one per video, per organization, ...), weighted and Zipf-like sampling,
// and collision-free fixed-length alphanumeric keys.

import { fnv1a, mulberry32 } from "../lib/prng.mjs";

/** 32-bit FNV-1a over the parts joined by U+0000, finished with murmur3's fmix32 avalanche. */
export function hash32(...parts) {
  let h = fnv1a(parts.join("\u0000"));
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A PRNG (mulberry32) seeded from any parts: `rng(seed, "video", 17)` is its own stream, so
 * video 17 comes out the same however the catalog is chunked or which pass generates it.
 */
export function rng(...parts) {
  const next = mulberry32(hash32(...parts));
  const r = {
    /** Uniform in [0, 1). */
    next,
    /** Integer in [min, max] (inclusive). */
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    /** true with probability p. */
    chance: (p) => next() < p,
    /** One element, uniformly. */
    pick: (items) => items[Math.floor(next() * items.length)],
    /** One value of `[[value, weight], ...]`, proportionally to weight. */
    weighted: (pairs) => {
      let total = 0;
      for (const [, w] of pairs) total += w;
      let x = next() * total;
      for (const [value, w] of pairs) {
        if ((x -= w) < 0) return value;
      }
      return pairs[pairs.length - 1][0];
    },
    /** A shuffled copy (Fisher-Yates). */
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
  return r;
}

/**
 * Zipf-like sampler over ranks 0..n-1: P(rank k) ∝ 1 / (k + 1)^s. Rank 0 is the most used
 * name, the last ranks are used once or never: the long tail real catalogs have.
 */
export class Zipf {
  constructor(n, s = 1) {
    this.n = n;
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      total += 1 / Math.pow(k + 1, s);
      this.cdf[k] = total;
    }
    this.total = total;
  }

  /** One rank. */
  sample(r) {
    const x = r.next() * this.total;
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** `count` distinct ranks (at most n), in the order drawn. */
  sampleDistinct(r, count) {
    const want = Math.min(count, this.n);
    const seen = new Set();
    for (let attempts = 0; seen.size < want && attempts < want * 50; attempts++)
      seen.add(this.sample(r));
    return [...seen];
  }
}

const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * The index-th key of a keyspace: `length` alphanumeric characters. index → (index * multiplier
 * + offset) mod 62^length is a bijection (the multiplier is coprime with 62), so distinct
 * indexes give distinct keys without remembering the ones already handed out, and the keys
 * still look random.
 */
export function alnumKey(index, { length, salt }) {
  const space = 62n ** BigInt(length);
  const big = (name) =>
    ((BigInt(hash32(salt, name, 1)) << 64n) |
      (BigInt(hash32(salt, name, 2)) << 32n) |
      BigInt(hash32(salt, name, 3))) %
    space;
  const offset = big("offset");
  // Spread over the whole space (consecutive indexes differ in every position), odd and not a
  // multiple of 31: coprime with 62^length.
  let multiplier = big("multiplier") | 1n;
  while (multiplier % 31n === 0n) multiplier += 2n;
  let value = (BigInt(index) * multiplier + offset) % space;
  let key = "";
  for (let i = 0; i < length; i++) {
    key = ALNUM[Number(value % 62n)] + key;
    value /= 62n;
  }
  return key;
}
