// Values the generators draw from: statistics fields, words, names, countries, the E6 filter
// syntax (tags, categories, events, customFields).
import { AD_COUNTERS, COMBINED_FIELDS, ECOMMERCE_COUNTERS, VIDEO_COUNTERS } from "../rules.mjs";
import { nastyString, SQL, UNICODE } from "./odd-values.mjs";

/**
 * Field names for the statistics queries: E9's sortable fields first (then the row's spelling of
 * one), the other counters, and two accepted aliases (src/shared/counters.ts).
 */
export const SORT_FIELDS = [...COMBINED_FIELDS, "video_exited_fulscreen"];
export const STATS_FIELDS = [
  ...new Set([
    ...SORT_FIELDS,
    ...VIDEO_COUNTERS,
    ...AD_COUNTERS,
    ...ECOMMERCE_COUNTERS,
    "played_1",
    "played_30",
  ]),
];
export const WORDS = [
  "final",
  "cup",
  "highlights",
  "news",
  "goal",
  "winner",
  "trophy",
  "morning",
  "video",
  "e2e",
  "demo",
  "fin",
  "Café",
  "naïve",
];
export const DEFAULT_NAMES = {
  tags: ["football", "highlights", "fuzz", "news", "rock,roll", "a|b", "x!y"],
  categories: ["Sport", "News", "fuzz"],
  events: ["Cup Final", "fuzz"],
  customFieldNames: ["season", "show"],
};
export const COUNTRIES = [
  "US",
  "FR",
  "DE",
  "ZZ",
  "XX",
  "T1",
  "",
  "us",
  "USA",
  "A1",
  "😀",
  "U",
  "GB",
];

export const utcDay = (offsetDays = 0) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** `,` groups of `|` alternatives of names, each value percent-encoded (a literal , | ! inside a name). */
export function filterValue(rng, names, { maxGroups = 3, maxAlternatives = 3 } = {}) {
  const groups = rng.int(1, maxGroups);
  return Array.from({ length: groups }, () =>
    Array.from({ length: rng.int(1, maxAlternatives) }, () =>
      encodeURIComponent(rng.chance(0.85) ? rng.pick(names) : rng.string(rng.int(1, 8))),
    ).join("|"),
  ).join(",");
}

export const CUSTOM_FIELDS_BROKEN = [
  "[",
  "]",
  "[]",
  "[{}]",
  "[{a}]",
  "[{a:}]",
  "[{:1}]",
  "[{a:1}",
  "[{a:1}]]",
  "{a:1}",
  "[{a:1},]",
  "[{a:1,}]",
  "[{a:1|}]",
  "[{a:|1}]",
  "[{a:!}]",
  "[{a:1!}]",
  "[{a:1|2!3},{b:x}]",
  "[{a:1|2!3},{b:x}",
  "[{a:[{b:1}]}]",
  "[{a:{b:1}}]",
  "[{a:1}]trailing",
  " [{a:1}] ",
  "[{a%3Ab:1}]",
  "[{a:%ZZ}]",
  "[{a:%00}]",
  "[{a:%E0%A4%A}]",
  "[{a:1}][{b:2}]",
  "[[{a:1}]]",
  "[{a:1}{b:2}]",
  "[{a:1} , {b:2}]",
  "[{ a : 1 }]",
  "[{a::1}]",
  "[{a:1:2}]",
  "[{'a':1}]",
  '[{"a":1}]',
  "[{a:1|2|3!4|5!6}]",
  "[{😀:🎉}]",
  "[{season:NEAR(}]",
  '[{season:"}]',
  "[{season:*}]",
  "[{season:' OR 1=1 --}]",
  "[{\u0000:\u0000}]",
  "[{a:\u202e1}]",
];

export function customFieldsValue(rng, ctx) {
  const names = [...ctx.names.customFieldNames];
  const values = () =>
    encodeURIComponent(rng.pick(["1", "2", "3", "A", "B", "x", "rock,roll", "a|b"]));
  return rng.weighted([
    [
      4,
      () =>
        `[{${rng.pick(names)}:${Array.from({ length: rng.int(1, 3) }, values).join(rng.pick(["|", "!"]))}}]`,
    ],
    [
      2,
      () =>
        `[${Array.from({ length: rng.int(2, 4) }, () => `{${rng.pick(names)}:${values()}}`).join(",")}]`,
    ],
    [
      1,
      () =>
        `[{${Array.from({ length: rng.int(2, 3) }, () => `${rng.pick(names)}:${values()}`).join(",")}}]`,
    ],
    [1, () => "[{a:1|2!3},{b:x}]"],
  ])();
}

export function customFieldsNasty(rng) {
  return rng.weighted([
    [6, () => rng.pick(CUSTOM_FIELDS_BROKEN)],
    [
      1,
      () => `[{${Array.from({ length: rng.pick([20, 21, 100]) }, (_, i) => `f${i}:1`).join(",")}}]`,
    ],
    [1, () => `[${Array.from({ length: rng.pick([21, 200]) }, (_, i) => `{f${i}:1}`).join(",")}]`],
    [
      1,
      () =>
        `[{a:${Array.from({ length: rng.pick([100, 101, 1000]) }, (_, i) => i).join(rng.pick(["|", "!"]))}}]`,
    ],
    [1, () => `[{a:${"x".repeat(rng.pick([1001, 3000, 100_000]))}}]`],
    [1, () => "[".repeat(rng.pick([100, 1000])) + "{a:1}" + "]".repeat(rng.pick([0, 100]))],
    [1, () => `[{${nastyString(rng).value}:${nastyString(rng).value}}]`],
  ])();
}

export function filterNasty(rng) {
  return rng.weighted([
    [
      2,
      () =>
        rng.pick([
          ",",
          "|",
          ",,",
          "a,,b",
          "a|",
          "|a",
          "a,",
          ",a",
          " , | ",
          "a||b",
          "a,|b",
          "||",
          " ",
          "%",
          "%E0%A4%A",
          "%00",
          "a%2",
          "%ZZ,b",
          "rock%252Croll",
          "%2C",
          "%7C|%7C",
          "a%2Cb",
          "a%7Cb",
        ]),
    ],
    [1, () => Array.from({ length: rng.pick([20, 21, 50, 500]) }, (_, i) => `t${i}`).join(",")],
    [
      1,
      () => Array.from({ length: rng.pick([50, 51, 100, 101, 1000]) }, (_, i) => `v${i}`).join("|"),
    ],
    [
      1,
      () =>
        Array.from({ length: rng.int(5, 30) }, (_, g) =>
          Array.from({ length: rng.int(1, 8) }, (_, v) => `g${g}v${v}`).join("|"),
        ).join(","),
    ],
    [3, () => nastyString(rng).value],
    [
      2,
      () =>
        Array.from({ length: rng.int(1, 4) }, () => rng.pick(SQL)).join(rng.pick([",", "|", " "])),
    ],
    [
      1,
      () =>
        Array.from({ length: rng.int(1, 4) }, () => rng.pick(UNICODE)).join(rng.pick([",", "|"])),
    ],
  ])();
}

export function searchValue(rng, minLength = 1) {
  const term = () => {
    const words = Array.from({ length: rng.int(1, 2) }, () => rng.pick(WORDS)).join(" ");
    return words.length >= minLength ? words : words.padEnd(minLength, "e");
  };
  return rng.chance(0.6)
    ? term()
    : Array.from({ length: rng.int(1, 3) }, () =>
        Array.from({ length: rng.int(1, 2) }, term).join("|"),
      ).join(",");
}
