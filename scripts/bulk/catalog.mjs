// The bulk catalog: organizations bulk1..bulkK and N videos with names, custom fields,
// service categories, syndication windows and feeds, generated deterministically from a seed
// and a reference time, and rendered as SQL in id order with explicit ids.
//
// Every video is generated from its own PRNG stream (seed, "video", index), so a video is the
// same whichever pass or chunk produces it: pass 1 collects the names in use (labels are
// inserted before the rows that link to them), pass 2 renders the rows chunk by chunk.
import { createHash } from "node:crypto";
import { ALL_ENTITLEMENTS } from "../lib/entitlements.mjs";
import { alnumKey, rng, Zipf } from "./random.mjs";
import { insertStatements, raw } from "./sql.mjs";
import {
  ADJECTIVES,
  CATEGORIES,
  EVENTS,
  GEOS,
  NOUNS,
  PLACES,
  RATINGS,
  SERVICE_CATEGORIES,
  SHOWS,
  SYNDICATION_NAMES,
  VERBS,
} from "./words.mjs";

export const NETWORK = "bulk-network";
/** organization_key pattern of bulk organizations (GLOB): bulk1, bulk2, ... */
export const BULK_ORG_GLOB = "bulk[0-9]*";

const DAY = 86_400_000;
const CATALOG_SPAN = 730 * DAY; // videos were created over the last two years
const CHUNK_SIZE = 100_000_000;
/**
 * Bytes per INSERT statement. wrangler splits a SQL file into statements with a per-character
 * regex test over the statement read so far (quadratic in statement length): 90 KB statements
 * made a 3.3 MB file take 7.5 s to split, 8 KB ones 1.6 s.
 */
export const STATEMENT_BYTES = 8_000;
const CATEGORIES_PER_ORG = 50;
const TAGS_PER_ORG = 2000;
const EVENTS_PER_ORG = 100;
/** Synthetic surnames: each is used by a handful of videos at most (rare search words). */
const RARE_NAMES = 6000;
const FIRST_NAMES = [
  "Anna",
  "Marta",
  "Lukas",
  "Sofia",
  "Mateo",
  "Chloé",
  "Jonas",
  "Amélie",
  "Noah",
  "Léa",
  "Omar",
  "Priya",
  "Kenji",
  "Ingrid",
  "Tomás",
  "Zoë",
  "Ravi",
  "Elena",
  "Hugo",
  "Björn",
];
const SYLLABLES = [
  "ka",
  "lo",
  "mir",
  "ven",
  "do",
  "ra",
  "sel",
  "tor",
  "bri",
  "zan",
  "qu",
  "el",
  "nor",
  "vi",
  "as",
  "gun",
  "ph",
  "ya",
  "tre",
  "mo",
];

const sha256Hex = (value) => createHash("sha256").update(value, "utf8").digest("hex");
const iso = (ms) => new Date(ms).toISOString();
const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);
/** "a" or "an" before a word. */
const a = (word) => `${/^[aeiouàáâäéèêíîóôöúü]/i.test(word) ? "an" : "a"} ${word}`;

/** Deterministic pseudo-surname number `i` ("Kalomir", "Venselbri"): unique per i. */
function rareName(i) {
  let n = i;
  let word = "";
  do {
    word += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  // A second fixed syllable keeps short ones from being common words.
  return capitalize(word + SYLLABLES[(i * 7 + 3) % SYLLABLES.length] + "n");
}

/** Organization n (1-based): plans and entitlements vary; bulk1 has everything. */
function organizationSpec(n, baseIds, now) {
  let plan = "standard";
  let entitlements = [];
  if (n === 1) {
    plan = "enterprise";
    entitlements = ALL_ENTITLEMENTS;
  } else if (n % 3 === 2) {
    plan = "enterprise";
    entitlements = ["network", "mmi", "custom_fields", "events"];
  } else if (n % 3 === 0) {
    entitlements = ["network", "events"];
  }
  const key = `bulk${n}`;
  return {
    n,
    id: baseIds.organizations + n,
    subOrganizationId: baseIds.sub_organizations + n,
    organizationKey: key,
    name: `Bulk Publisher ${n}`,
    syncCode: `${key}-sync`,
    apiKey: `${key}-key`,
    apiSecret: `${key}-secret`,
    apiToken: `${key}-token`,
    mmiKey: `${key}-mmi`,
    plan,
    entitlements,
    createdAt: iso(now - CATALOG_SPAN - 30 * DAY),
  };
}

/** Share of the videos per organization: bulk1 40%, the others 60% in a 1/rank tail. */
function organizationWeights(k) {
  if (k === 1) return [1];
  const tail = Array.from({ length: k - 1 }, (_, i) => 1 / (i + 1));
  const sum = tail.reduce((a, b) => a + b, 0);
  return [0.4, ...tail.map((w) => (0.6 * w) / sum)];
}

/**
 * An organization's names in popularity order (rank 0 first). Organizations share the
 * vocabulary but rank it differently, so bulk1's top tag is not bulk2's.
 */
function organizationVocabulary(seed, n) {
  const r = rng(seed, "vocabulary", n);
  const singles = r.shuffle([...NOUNS, ...PLACES]);
  const pairs = [];
  for (const adjective of ADJECTIVES) for (const noun of NOUNS) pairs.push(`${adjective} ${noun}`);
  // Case-sensitive lookalikes of popular tags live in the tail ("Kitchen" next to "kitchen").
  const lookalikes = singles
    .slice(0, 20)
    .map(capitalize)
    .filter((name) => !singles.includes(name));
  const years = ["2023", "2024", "2025", "2026", "4K", "HD", "behind the scenes", "full episode"];
  const tail = r.shuffle([...lookalikes, ...years, ...r.shuffle(pairs).slice(0, TAGS_PER_ORG)]);
  return {
    category: r.shuffle(CATEGORIES).slice(0, CATEGORIES_PER_ORG),
    tag: [...singles, ...tail].slice(0, TAGS_PER_ORG),
    event: r.shuffle(EVENTS).slice(0, EVENTS_PER_ORG),
  };
}

const LABEL_KINDS = [
  // kind, JSON column, how many per video (weighted)
  {
    kind: "category",
    column: "categories",
    counts: [
      [1, 55],
      [2, 30],
      [3, 15],
    ],
  },
  {
    kind: "tag",
    column: "tags",
    counts: [
      [0, 8],
      [1, 10],
      [2, 14],
      [3, 16],
      [4, 16],
      [5, 13],
      [6, 10],
      [7, 7],
      [8, 6],
    ],
  },
  {
    kind: "event",
    column: "events",
    counts: [
      [0, 55],
      [1, 33],
      [2, 12],
    ],
  },
];

/**
 * The catalog plan: everything a video needs besides its index. `baseIds` are the current
 * maximum ids of the tables (new rows get the ids after them), `now` the reference time (ms).
 */
export function planCatalog({
  videos,
  orgs,
  feeds = 0,
  seed,
  now,
  baseIds,
  statementBytes = STATEMENT_BYTES,
}) {
  const organizations = Array.from({ length: orgs }, (_, i) =>
    organizationSpec(i + 1, baseIds, now),
  );
  const vocabularies = organizations.map((o) => organizationVocabulary(seed, o.n));
  const order = rng(seed, "words");
  return {
    videos,
    feeds,
    statementBytes,
    seed: String(seed),
    now,
    baseIds,
    organizations,
    vocabularies,
    weights: organizationWeights(orgs).map((w, i) => [i, w]),
    samplers: {
      category: new Zipf(CATEGORIES_PER_ORG, 0.9),
      tag: new Zipf(TAGS_PER_ORG, 1),
      event: new Zipf(EVENTS_PER_ORG, 1),
      noun: new Zipf(NOUNS.length, 1),
      adjective: new Zipf(ADJECTIVES.length, 0.8),
      place: new Zipf(PLACES.length, 0.8),
    },
    // Word popularity is the same for every organization (titles are not per-org vocabulary).
    words: {
      noun: order.shuffle(NOUNS),
      adjective: order.shuffle(ADJECTIVES),
      place: order.shuffle(PLACES),
    },
  };
}

function title(plan, r, video) {
  const w = (kind) => plan.words[kind][plan.samplers[kind].sample(r)];
  const year = r.int(2019, 2026);
  if (video.isLive) return `Live: ${capitalize(w("adjective"))} ${w("noun")} from ${w("place")}`;
  return r.weighted([
    [() => `${capitalize(w("adjective"))} ${w("noun")} in ${w("place")}`, 5],
    [() => `How to ${r.pick(VERBS)} ${a(w("noun"))}`, 3],
    [() => `The ${w("adjective")} ${w("noun")}: ${w("noun")} and ${w("noun")}`, 3],
    [
      () => `${w("place")} ${w("noun")} ${r.pick(["tour", "guide", "diary", "special"])} ${year}`,
      3,
    ],
    [
      () =>
        `Top ${r.int(3, 20)} ${w("noun")} ${r.pick(["moments", "ideas", "tips", "secrets"])} of ${year}`,
      2,
    ],
    [() => `${capitalize(w("noun"))} ${w("noun")}, episode ${r.int(1, 120)}`, 2],
    [() => `Interview with ${r.pick(FIRST_NAMES)} ${rareName(r.int(0, RARE_NAMES - 1))}`, 1],
  ])();
}

function description(plan, r) {
  const w = (kind) => plan.words[kind][plan.samplers[kind].sample(r)];
  const sentences = [];
  const count = r.int(1, 3);
  for (let i = 0; i < count; i++) {
    sentences.push(
      r.weighted([
        [
          () =>
            `${capitalize(a(w("adjective")))} look at the ${w("noun")} ${r.pick(["in", "from", "around"])} ${w("place")}, with ${w("noun")} and ${w("noun")}.`,
          3,
        ],
        [
          () =>
            `We ${r.pick(VERBS)} the ${w("adjective")} ${w("noun")} ${r.pick(["from", "in", "near"])} ${w("place")}.`,
          3,
        ],
        [
          () =>
            `Watch our ${w("noun")} team ${r.pick(VERBS)} ${a(w("noun"))} in this ${w("adjective")} ${w("noun")}.`,
          2,
        ],
        [
          () =>
            `${capitalize(w("noun"))}, ${w("noun")} and ${r.pick(["the", "some"])} ${w("adjective")} ${w("noun")} for ${r.pick(["everyone", "beginners", "families", "fans"])}.`,
          2,
        ],
        [
          () =>
            `Featuring ${r.pick(FIRST_NAMES)} ${rareName(r.int(0, RARE_NAMES - 1))} ${r.pick(["and friends", "on location", "in the studio"])}.`,
          1,
        ],
      ])(),
    );
  }
  return sentences.join(" ");
}

function syndicationWindows(r, now) {
  const windows = [];
  const count = r.weighted([
    [1, 3],
    [2, 1],
  ]);
  for (let i = 0; i < count; i++) {
    const state = r.weighted([
      ["open", 50],
      ["closed", 25],
      ["future", 25],
    ]);
    let start;
    let stop;
    // Margins of at least two days keep "open" windows open (and "future" ones closed) for a
    // while after the reference time.
    if (state === "open") {
      start = now - r.int(2, 600) * DAY;
      stop = r.chance(0.4) ? null : now + r.int(2, 365) * DAY;
    } else if (state === "closed") {
      stop = now - r.int(2, 300) * DAY;
      start = stop - r.int(1, 90) * DAY;
    } else {
      start = now + r.int(2, 120) * DAY;
      stop = r.chance(0.3) ? null : start + r.int(7, 365) * DAY;
    }
    const geoKind = r.weighted([
      ["everywhere", 35],
      ["dash", 5],
      ["list", 60],
    ]);
    let geos = [];
    if (geoKind === "dash") geos = ["-"];
    if (geoKind === "list") {
      const set = new Set(r.chance(0.5) ? ["USA"] : []);
      const size = r.int(1, 4);
      while (set.size < size) set.add(r.pick(GEOS.slice(1)));
      geos = [...set];
    }
    windows.push({
      name: r.pick(SYNDICATION_NAMES),
      startTime: iso(start),
      stopTime: stop === null ? null : iso(stop),
      geos,
    });
  }
  return windows;
}

function customFields(r) {
  const count = r.weighted([
    [0, 40],
    [1, 25],
    [2, 20],
    [3, 15],
  ]);
  const names = r.shuffle(["season", "show", "rating"]).slice(0, count);
  return names.map((name) => {
    if (name === "season") return { season: r.int(1, 10) };
    if (name === "show") return { show: r.pick(SHOWS) };
    return { rating: r.weighted(RATINGS) };
  });
}

/** Video `index` (0-based) of the plan: the same object on every call. */
export function generateVideo(plan, index) {
  const r = rng(plan.seed, "video", index);
  const orgIndex = r.weighted(plan.weights);
  const org = plan.organizations[orgIndex];
  const vocabulary = plan.vocabularies[orgIndex];
  const contentKey = alnumKey(index, { length: 8, salt: `${plan.seed}:content` });
  const status = r.chance(0.96) ? "available" : "uploading";
  const isLive = r.chance(0.02);
  // Ids grow with creation time, as they do when videos are uploaded one after the other.
  const createdMs =
    plan.now - CATALOG_SPAN + Math.floor(((index + r.next()) / plan.videos) * (CATALOG_SPAN - DAY));
  const publishedMs = Math.min(createdMs + r.int(60, 3 * 86_400) * 1000, plan.now - 60_000);
  const names = {};
  for (const { kind, counts } of LABEL_KINDS) {
    const ranks = plan.samplers[kind].sampleDistinct(r, r.weighted(counts));
    names[kind] = ranks.map((rank) => vocabulary[kind][rank]);
  }
  const video = {
    index,
    id: plan.baseIds.contents + 1 + index,
    org,
    contentKey,
    status,
    isLive,
    removed: r.chance(0.01),
    subOrganizationId: r.chance(0.1) ? org.subOrganizationId : null,
    categories: names.category,
    tags: names.tag,
    events: names.event,
    customFields: customFields(r),
    serviceCategories: r.chance(0.3)
      ? [...new Set([r.pick(SERVICE_CATEGORIES), r.pick(SERVICE_CATEGORIES)])].slice(0, r.int(1, 2))
      : [],
    createdAt: iso(createdMs),
    publishedAt: status === "available" ? iso(publishedMs) : null,
    updatedAt: iso(status === "available" ? publishedMs : createdMs),
  };
  // Log-uniform 10 s .. 3600 s; 2-8 Mbit/s.
  video.duration = Math.round(10 * Math.pow(360, r.next()) * 1000) / 1000;
  video.contentSize = Math.round((video.duration * r.int(2_000_000, 8_000_000)) / 8);
  video.title = title(plan, r, video);
  video.description = description(plan, r);
  video.syndications = r.chance(0.2) ? syndicationWindows(r, plan.now) : [];
  return video;
}

/** Feed `index` (0-based): an organization's feed over some of its popular names. */
export function generateFeed(plan, index) {
  const r = rng(plan.seed, "feed", index);
  const orgIndex = r.weighted(plan.weights);
  const org = plan.organizations[orgIndex];
  const vocabulary = plan.vocabularies[orgIndex];
  const popular = (kind, top, count) => r.shuffle(vocabulary[kind].slice(0, top)).slice(0, count);
  let configuration = { categories: [], tags: [], events: [] };
  if (!r.chance(0.05)) {
    do {
      configuration = {
        categories: popular(
          "category",
          15,
          r.weighted([
            [0, 3],
            [1, 5],
            [2, 2],
          ]),
        ),
        tags: popular(
          "tag",
          40,
          r.weighted([
            [0, 3],
            [1, 4],
            [2, 2],
            [3, 1],
          ]),
        ),
        events: popular(
          "event",
          10,
          r.weighted([
            [0, 7],
            [1, 3],
          ]),
        ),
      };
    } while (
      configuration.categories.length + configuration.tags.length + configuration.events.length ===
      0
    );
  }
  const label =
    configuration.categories[0] ?? configuration.tags[0] ?? configuration.events[0] ?? "Everything";
  const createdMs = plan.now - r.int(1, 700) * DAY;
  return {
    id: plan.baseIds.feeds + 1 + index,
    feedId: alnumKey(index, { length: 10, salt: `${plan.seed}:feed` }),
    org,
    name: `${capitalize(label)} ${r.pick(["picks", "channel", "highlights", "feed", "playlist"])} ${index + 1}`,
    ...configuration,
    createdAt: iso(createdMs),
    updatedAt: iso(Math.min(createdMs + r.int(0, 60) * DAY, plan.now)),
  };
}

/**
 * Pass 1: the names each organization uses, with label ids assigned (popular names first).
 * Returns a Map "orgId kind name" → label id, and the label rows to insert.
 */
export function collectLabels(plan) {
  const used = plan.organizations.map(() => ({
    category: new Set(),
    tag: new Set(),
    event: new Set(),
  }));
  for (let i = 0; i < plan.videos; i++) {
    const v = generateVideo(plan, i);
    const sets = used[v.org.n - 1];
    for (const name of v.categories) sets.category.add(name);
    for (const name of v.tags) sets.tag.add(name);
    for (const name of v.events) sets.event.add(name);
  }
  const ids = new Map();
  const rows = [];
  let next = plan.baseIds.labels;
  plan.organizations.forEach((org, i) => {
    for (const { kind } of LABEL_KINDS) {
      for (const name of plan.vocabularies[i][kind]) {
        if (!used[i][kind].has(name)) continue;
        next += 1;
        ids.set(labelKey(org.id, kind, name), next);
        rows.push([next, org.id, kind, name]);
      }
    }
  });
  return { ids, rows };
}

const labelKey = (organizationId, kind, name) => `${organizationId}\u0000${kind}\u0000${name}`;

/** SQL of the organizations, their sub-organizations, tokens, the network and the labels. */
export function organizationStatements(plan, labelRows) {
  const nowIso = iso(plan.now);
  const size = { maxBytes: plan.statementBytes };
  const statements = [
    `INSERT INTO networks (name, created_at) VALUES ('${NETWORK}', '${nowIso}') ON CONFLICT(name) DO NOTHING;`,
  ];
  const network = raw(`(SELECT id FROM networks WHERE name = '${NETWORK}')`);
  statements.push(
    ...insertStatements(
      "organizations",
      [
        "id",
        "organization_key",
        "name",
        "sync_code",
        "api_key",
        "api_secret_hash",
        "plan",
        "entitlements",
        "network_id",
        "created_at",
      ],
      plan.organizations.map((o) => [
        o.id,
        o.organizationKey,
        o.name,
        o.syncCode,
        o.apiKey,
        sha256Hex(o.apiSecret),
        o.plan,
        JSON.stringify(o.entitlements),
        network,
        o.createdAt,
      ]),
      size,
    ),
    ...insertStatements(
      "sub_organizations",
      ["id", "organization_id", "name", "mmi_key", "created_at"],
      plan.organizations.map((o) => [
        o.subOrganizationId,
        o.id,
        `${o.name} Sub-organization`,
        o.mmiKey,
        o.createdAt,
      ]),
      size,
    ),
    ...insertStatements(
      "api_tokens",
      ["organization_id", "token_hash", "created_at"],
      plan.organizations.map((o) => [o.id, sha256Hex(o.apiToken), o.createdAt]),
      size,
    ),
    ...insertStatements("labels", ["id", "organization_id", "kind", "name"], labelRows, size),
  );
  return statements;
}

const CONTENT_COLUMNS = [
  "id",
  "organization_id",
  "sub_organization_id",
  "content_key",
  "title",
  "description",
  "thumbnail_url",
  "categories",
  "tags",
  "events",
  "custom_fields",
  "translations",
  "subtitles",
  "service_categories",
  "is_live",
  "url_hls",
  "removed",
  "status",
  "content_size",
  "suffix",
  "media_key",
  "upload_id",
  "chunk_size",
  "thumbnail_uploaded",
  "duration",
  "width",
  "height",
  "video_codec",
  "audio_codec",
  "created_at",
  "updated_at",
  "published_at",
];

function contentRow(v) {
  const available = v.status === "available";
  return [
    v.id,
    v.org.id,
    v.subOrganizationId,
    v.contentKey,
    v.title,
    v.description,
    null,
    JSON.stringify(v.categories),
    JSON.stringify(v.tags),
    JSON.stringify(v.events),
    JSON.stringify(v.customFields),
    "[]",
    "[]",
    JSON.stringify(v.serviceCategories),
    v.isLive,
    null,
    v.removed,
    v.status,
    v.contentSize,
    ".mp4",
    `${v.contentKey}/${v.contentKey}.mp4`,
    available ? null : `bulk-upload-${v.contentKey}`,
    CHUNK_SIZE,
    false,
    available ? v.duration : null,
    available ? 1920 : null,
    available ? 1080 : null,
    available ? "avc1.640028" : null,
    available ? "mp4a.40.2" : null,
    v.createdAt,
    v.updatedAt,
    v.publishedAt,
  ];
}

/**
 * SQL for videos [from, to): contents rows (their triggers fill contents_fts and
 * listing_counts), then content_labels, content_custom_fields and syndications, all in id
 * order. Returns the statements and row counts per table.
 */
export function videoStatements(plan, labelIds, from, to, syndicationBase) {
  const contents = [];
  const links = [];
  const fields = [];
  const windows = [];
  let syndicationId = syndicationBase;
  const size = { maxBytes: plan.statementBytes };
  for (let i = from; i < to; i++) {
    const v = generateVideo(plan, i);
    contents.push(contentRow(v));
    for (const { kind, column } of LABEL_KINDS) {
      for (const name of v[column])
        links.push([labelIds.get(labelKey(v.org.id, kind, name)), v.id, v.publishedAt]);
    }
    for (const field of v.customFields) {
      const [[name, value]] = Object.entries(field);
      fields.push([v.id, v.org.id, name, String(value)]);
    }
    for (const w of v.syndications) {
      windows.push([
        ++syndicationId,
        v.id,
        w.name,
        w.startTime,
        w.stopTime,
        JSON.stringify(w.geos),
      ]);
    }
  }
  const statements = [
    ...insertStatements("contents", CONTENT_COLUMNS, contents, size),
    // published_at with the link, as the worker writes it (the trigger then has nothing to do).
    ...insertStatements("content_labels", ["label_id", "content_id", "published_at"], links, size),
    ...insertStatements(
      "content_custom_fields",
      ["content_id", "organization_id", "name", "value"],
      fields,
      size,
    ),
    ...insertStatements(
      "syndications",
      ["id", "content_id", "name", "start_time", "stop_time", "geos"],
      windows,
      size,
    ),
  ];
  return {
    statements,
    syndicationId,
    counts: {
      contents: contents.length,
      content_labels: links.length,
      content_custom_fields: fields.length,
      syndications: windows.length,
    },
  };
}

/** SQL for all feeds. New feeds are dirty (never built), so the cron builds their files. */
export function feedStatements(plan) {
  const rows = [];
  for (let i = 0; i < plan.feeds; i++) {
    const f = generateFeed(plan, i);
    rows.push([
      f.id,
      f.feedId,
      f.org.id,
      f.name,
      JSON.stringify(f.categories),
      JSON.stringify(f.tags),
      JSON.stringify(f.events),
      f.createdAt,
      f.updatedAt,
      f.updatedAt,
      null,
      "{}",
    ]);
  }
  return insertStatements(
    "feeds",
    [
      "id",
      "feed_id",
      "organization_id",
      "name",
      "categories",
      "tags",
      "events",
      "created_at",
      "updated_at",
      "dirty_since",
      "built_at",
      "files",
    ],
    rows,
    { maxBytes: plan.statementBytes },
  );
}
