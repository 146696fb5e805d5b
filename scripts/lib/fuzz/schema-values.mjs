// Schema-driven generation: a value for an OpenAPI schema (name-based knowledge first).
import { WORDS } from "./values.mjs";

export function patternValue(rng, pattern) {
  // The simple shapes the document uses: ^[class]{m,n}$, optionally followed by \.(a|b)$ or \.ext$.
  const m = /^\^\[([^\]]+)\]\{(\d+)(?:,(\d+))?\}(.*)\$$/.exec(pattern);
  if (!m) return null;
  const [, cls, min, max, tail] = m;
  let alphabet = "";
  for (let i = 0; i < cls.length; i++) {
    if (cls[i + 1] === "-" && cls[i + 2] !== undefined) {
      for (let c = cls.charCodeAt(i); c <= cls.charCodeAt(i + 2); c++)
        alphabet += String.fromCharCode(c);
      i += 2;
    } else if (cls[i] !== "\\") alphabet += cls[i];
  }
  const hi = Math.min(Number(max ?? min), Number(min) + 11);
  let s = rng.string(rng.int(Number(min), hi), alphabet || "a");
  if (tail) {
    const alt = /^\\\.\(([^)]+)\)$/.exec(tail);
    if (alt) s += "." + rng.pick(alt[1].split("|"));
    else if (/^\\\.[a-z0-9]+$/.test(tail)) s += "." + tail.slice(2);
  }
  return s;
}

export function typeOf(schema, rng) {
  if (Array.isArray(schema.type)) {
    const nonNull = schema.type.filter((t) => t !== "null");
    return nonNull.length && rng.chance(0.9) ? rng.pick(nonNull) : rng.pick(schema.type);
  }
  if (schema.type) return schema.type;
  if (schema.properties || schema.additionalProperties) return "object";
  if (schema.items) return "array";
  if (schema.enum) return typeof schema.enum[0];
  return "string";
}

/** A value that should pass the schema (loosely); name-based knowledge first. */
export function generate(schema, rng, gen, name, depth = 0) {
  schema = gen.resolve(schema);
  const known = gen.known(name, schema, rng);
  if (known !== undefined) return known;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return generate(rng.pick(variants), rng, gen, name, depth);
  if (schema.enum) return rng.pick(schema.enum);
  const type = typeOf(schema, rng);
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return rng.chance(0.5);
    case "integer":
    case "number": {
      let min =
        schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const max =
        schema.maximum ??
        (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : min + 100);
      if (min > max) min = max;
      const n = rng.chance(0.7)
        ? rng.int(min, Math.min(max, min + 20))
        : rng.int(min, Math.min(max, 1_000_000));
      return type === "number" && rng.chance(0.3) ? n + 0.5 : n;
    }
    case "array": {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 3, min + 3);
      return Array.from({ length: rng.int(min, Math.max(min, max)) }, () =>
        generate(schema.items ?? {}, rng, gen, `${name}[]`, depth + 1),
      );
    }
    case "object": {
      const out = {};
      if (depth > 6) return out;
      const required = new Set(schema.required ?? []);
      for (const [key, prop] of Object.entries(schema.properties ?? {})) {
        if (required.has(key) || rng.chance(0.6)) {
          const value = generate(prop, rng, gen, key, depth + 1);
          if (value !== undefined) out[key] = value;
        }
      }
      if (
        schema.additionalProperties &&
        typeof schema.additionalProperties === "object" &&
        !schema.properties
      ) {
        for (let i = rng.int(name.startsWith("subtitles") ? 1 : 0, 2); i > 0; i--)
          out[gen.fieldName(rng, name)] = generate(
            schema.additionalProperties,
            rng,
            gen,
            "additional",
            depth + 1,
          );
      }
      return out;
    }
    default: {
      if (schema.format === "uri")
        return rng.pick([
          "https://example.com/a.jpg",
          "https://example.com/sub/en.vtt",
          "http://example.org/x",
        ]);
      if (schema.format === "date-time")
        return new Date(Date.now() + rng.int(-30, 30) * 86_400_000).toISOString();
      if (schema.pattern) {
        const s = patternValue(rng, schema.pattern);
        if (s !== null) return s;
      }
      const min = schema.minLength ?? 1;
      const max = Math.min(schema.maxLength ?? 16, min + 16);
      return rng.chance(0.5)
        ? rng.pick(WORDS).slice(0, max).padEnd(min, "x")
        : rng.string(rng.int(min, Math.max(min, max)));
    }
  }
}
