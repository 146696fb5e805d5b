// Per-request generation: what a request is built from (its organization, the run's state, its
// PRNG), the encodings of a request line and header values, credentials.
import {
  customFieldsValue,
  filterValue,
  SORT_FIELDS,
  STATS_FIELDS,
  searchValue,
  utcDay,
  WORDS,
} from "./values.mjs";

/** The knowledge a request is built from: this request's org, the run's state, this request's rng. */
export function makeGen(run, org, op, rng) {
  const { state } = run;
  const destructive = !["GET", "HEAD", "OPTIONS"].includes(op.method);
  const anyContentKey = () => {
    const published = [...state.publishedKeys];
    const own = org ? org.own.map((c) => c.contentKey) : [];
    if (destructive) {
      // never a key the fuzzer did not create itself
      return own.length && rng.chance(0.8) ? rng.pick(own) : rng.string(8);
    }
    return rng.weighted([
      [published.length ? 6 : 0, () => rng.pick(published)],
      [own.length ? 3 : 0, () => rng.pick(own)],
      [1, () => rng.string(rng.int(1, 8))],
    ])();
  };
  const feedId = () => {
    const own = org ? org.ownFeeds : [];
    if (destructive)
      return own.length && rng.chance(0.8) ? rng.pick(own) : rng.string(rng.int(4, 12));
    // public endpoints take any feed; the others the organization's own
    const all = op.auth === "public" || !org ? [...state.allFeedIds] : [...org.feedIds, ...own];
    return all.length && rng.chance(0.9) ? rng.pick(all) : rng.string(rng.int(4, 12));
  };
  const names = (kind) => [...state.names[kind]];
  const gen = {
    resolve: op.resolve,
    fieldName: (r, name) =>
      name.startsWith("subtitles")
        ? r.pick(["en", "fr", "de", "pt-BR", "es"])
        : r.pick([...state.names.customFieldNames, "season", "show", "x"]),
    known(name, schema) {
      switch (name) {
        case "contentKey":
        case "content_key":
          if (op.path === "/v2/content" && op.method === "POST")
            return rng.chance(0.7) ? undefined : rng.chance(0.5) ? null : rng.string(8);
          if (op.path.startsWith("/v2/analytics") || op.path === "/v2/videos")
            return rng.chance(0.7) ? anyContentKey() : undefined;
          return anyContentKey();
        case "organization_key":
          return org ? org.organizationKey : rng.string(8);
        case "organizationKey":
          if (op.path === "/admin/organizations") return `fz${rng.string(10)}`;
          return undefined;
        case "feed":
        case "feedId":
        case "feed_id":
          if (
            op.path === "/admin/feeds/rebuild" ||
            op.path.startsWith("/v2/analytics") ||
            op.path === "/v2/videos"
          )
            return rng.chance(0.5) ? feedId() : undefined;
          return feedId();
        case "sync_code":
        case "sync":
          return org ? org.syncCode : rng.string(10);
        case "mmi":
          return org?.mmiKey && rng.chance(0.8) ? org.mmiKey : rng.string(8);
        case "mmiKey":
          return `fzmmi${rng.string(8)}`;
        case "tags":
        case "categories":
        case "events":
        case "privateTags":
        case "privateCategories":
        case "tagString":
        case "categoryString":
          if (schema.enum || (schema.type !== "string" && schema.type !== "array"))
            return undefined;
          if (schema.type === "array" && op.resolve(schema.items ?? {}).type !== "string")
            return undefined;
          if (schema.type === "array")
            return rng.sample(
              names(
                name === "tags" || name === "events" || name === "categories" ? name : "tags",
              ).filter((n) => n.length <= 200),
              rng.int(0, 3),
            );
          return filterValue(
            rng,
            names(
              name.toLowerCase().includes("tag")
                ? "tags"
                : name.toLowerCase().includes("categor")
                  ? "categories"
                  : "events",
            ),
          );
        case "customFields":
          if (schema.type !== "string" && schema.type !== "array") return undefined;
          if (schema.type === "array")
            return rng.chance(0.8)
              ? [
                  {
                    [rng.pick([...state.names.customFieldNames])]: rng.chance(0.5)
                      ? rng.int(1, 5)
                      : rng.pick(["A", "B"]),
                  },
                ]
              : [];
          return customFieldsValue(rng, state);
        case "searchString":
          return searchValue(rng, op.path === "/v2/videos" ? 1 : 3);
        case "titleString":
          return searchValue(rng, 1);
        case "start_date":
        case "startDate":
          return utcDay(-rng.int(0, 40));
        case "end_date":
        case "endDate":
          return utcDay(rng.int(0, 1));
        case "fields":
        case "column_list":
          return rng.sample(STATS_FIELDS, rng.int(1, 4)).join(",");
        case "sort_field":
          return rng.pick(SORT_FIELDS);
        case "fingerprint":
          return `fp${rng.string(6)}`;
        case "fingerprint_list":
          return Array.from({ length: rng.int(1, 3) }, () => `"fp${rng.string(6)}"`).join(",");
        case "tput":
        case "watchedByTput":
          return `tput-${rng.string(6)}`;
        case "ecommerceKey":
          if (org?.ecommerceKeys.length && (op.method !== "POST" || rng.chance(0.3)))
            return rng.pick(org.ecommerceKeys);
          return `ek_${rng.string(6)}`;
        case "title":
        case "name":
        case "ecommerceName":
        case "description":
          if (
            op.path.startsWith("/admin/organizations/") &&
            name === "name" &&
            op.path.endsWith("sub-organizations")
          )
            return `fuzz sub ${rng.string(4)}`;
          return `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.string(4)}`;
        case "network":
          return rng.chance(0.5) ? null : rng.pick([run.network ?? "fuzz-network", "fuzz-network"]);
        case "entitlements":
          return rng.sample(run.entitlements, rng.int(0, run.entitlements.length));
        case "geos":
          return rng.sample(["USA", "FRA", "DEU", "-", "GBR"], rng.int(0, 3));
        case "summary":
        case "detailed":
          return undefined; // set together in fixups
        default:
          return undefined;
      }
    },
  };
  return gen;
}

export function encodeQueryPart(s) {
  // encodeURIComponent, but lone surrogates become the bytes of U+FFFD instead of throwing
  return Buffer.from(String(s), "utf8")
    .toString("latin1")
    .replace(
      /[^A-Za-z0-9\-_.~]/g,
      (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
    );
}

/** Only what a request line cannot carry is escaped: raw odd values keep their %, &, =, ../ ... */
export function encodeRaw(s) {
  return Buffer.from(String(s), "utf8")
    .toString("latin1")
    .replace(
      /[^\x21-\x7e]|#/g,
      (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
    );
}

/** A header value Node will send: UTF-8 bytes as latin1, characters it refuses (CTLs, DEL) %-escaped. */
export function headerSafe(s) {
  return Buffer.from(String(s), "utf8")
    .toString("latin1")
    .replace(
      /[^\t\x20-\x7e\x80-\xff]/g,
      (c) => "%" + c.charCodeAt(0).toString(16).padStart(2, "0"),
    );
}

/**
 * The credentials of one of the operation's security requirements (the document's alternatives;
 * every scheme of the chosen one), for this organization.
 */
export function credentialHeaders(rng, op, org, run) {
  const h = {};
  const q = [];
  const requirements = op.security ?? [];
  if (!requirements.length) return { headers: h, query: q };
  const chosen =
    requirements.length === 1
      ? requirements[0]
      : rng.weighted(
          requirements.map((r, i) => [i === 0 ? 0.7 : 0.3 / (requirements.length - 1), r]),
        );
  for (const scheme of Object.keys(chosen)) {
    switch (scheme) {
      case "adminAuth":
        if (run.adminToken) h.Authorization = `Bearer ${run.adminToken}`;
        break;
      case "bearerAuth":
        if (org?.apiToken) h.Authorization = `Bearer ${org.apiToken}`;
        break;
      case "syncCodeAuth":
        if (org) h["X-Service-Sync-Code"] = org.syncCode;
        break;
      case "apiKeyAuth":
        if (org?.apiKey) h["X-Service-Api-Key"] = org.apiKey;
        break;
      case "apiSecretAuth":
        if (org?.apiSecret) h["X-Service-Api-Secret"] = org.apiSecret;
        break;
      case "organizationKey":
        if (org && !q.some(([k]) => k === "organization_key"))
          q.push(["organization_key", encodeQueryPart(org.organizationKey)]);
        break;
      case "syncCodeQuery":
        if (org) q.push(["sync", encodeQueryPart(org.syncCode)]);
        break;
    }
  }
  if (
    org?.mmiKey &&
    (h["X-Service-Sync-Code"] || h.Authorization) &&
    op.auth !== "admin" &&
    rng.chance(0.08)
  )
    h["X-Service-MMI-Key"] = org.mmiKey;
  return { headers: h, query: q };
}

// Mutations. Each takes the request under construction and returns a label (or null: not applicable).
export const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=utf-16",
  "application/json, text/html",
  "application/jsonx",
  "APPLICATION/JSON",
  "application/json;;;",
  "application/xml",
  "",
  "*/*",
  "application/problem+json",
  "application/json; charset=latin1",
  "image/jpeg",
  "video/mp4",
];

export const RANGES = [
  "bytes=999999999999-",
  "bytes=5-1,7-9",
  "bytes=0-0",
  "bytes=-0",
  "bytes=-1",
  "bytes=0-",
  "bytes=",
  "bytes=a-b",
  "items=0-1",
  "bytes=0-1,2-3",
  "bytes=18446744073709551616-",
  "bytes= 1-2",
  "bytes=-99999999999999999999",
  "bytes=1-1-1",
  "bytes=--1",
  "bytes=0-99999999999999999999999",
  "bytes=10-5",
  "bytes=0--5",
  "bytes=1e3-2e3",
  "bytes=0x10-0x20",
  "bytes=0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1",
  "bytes=99-",
  "bytes=0-99",
];
