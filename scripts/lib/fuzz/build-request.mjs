// Building request i: a generated request, its mutations, and the fixups that keep it sendable.

import { jpegish, mp4ish } from "./media.mjs";
import {
  decodeURIComponentSafe,
  mutateBodyText,
  mutateBodyValue,
  mutateCredentials,
  mutateHeaders,
  mutatePath,
  mutateQuery,
} from "./mutations.mjs";
import { serializeJson } from "./odd-values.mjs";
import { credentialHeaders, encodeQueryPart, makeGen } from "./requests.mjs";
import { generate } from "./schema-values.mjs";

export const OTHER_METHODS = [
  "HEAD",
  "OPTIONS",
  "PATCH",
  "PUT",
  "DELETE",
  "POST",
  "GET",
  "TRACE",
  "PROPFIND",
  "get",
  "FOO",
];

/** Builds request i (before the safety guard). */
export function buildRequest(run, op, org, rng) {
  const gen = makeGen(run, org, op, rng);
  run.ctxRaw = { raw: [] };
  const req = {
    run,
    op,
    org,
    method: op.method,
    pathParams: [],
    query: [],
    headers: {},
    body: null,
    bodyText: null,
    bodyValue: undefined,
    contentType: null,
    mutations: [],
    credMutated: false,
    authRisk: false,
  };

  // Path parameters
  let contentKeyForPath = null;
  for (const p of op.params.filter((x) => x.in === "path")) {
    let value;
    if (p.name === "contentKey" && op.path.startsWith("/media/")) {
      value = contentKeyForPath = gen.known("contentKey", p.schema) ?? rng.string(8);
    } else if (p.name === "file") {
      const key = contentKeyForPath ?? [...run.state.publishedKeys][0] ?? rng.string(8);
      value = op.path.startsWith("/thumbnails/")
        ? `${rng.chance(0.9) ? gen.known("contentKey", p.schema) : rng.string(8)}.jpg`
        : `${key}${rng.chance(0.9) ? ".mp4" : ".mov"}`;
    } else if (p.name === "organizationKey") {
      const destructive = op.method !== "GET";
      const all = destructive
        ? run.state.scratchOrgs
        : [...run.orgs.map((o) => o.organizationKey), ...run.state.scratchOrgs];
      value = all.length && rng.chance(0.8) ? rng.pick(all) : `fz${rng.string(8)}`;
    } else if (p.name === "contentKey" && op.path.startsWith("/admin/videos/")) {
      const own = run.orgs.flatMap((o) => o.own.map((c) => c.contentKey));
      value = own.length && rng.chance(0.8) ? rng.pick(own) : rng.string(8);
    } else if (p.name === "type") {
      value = rng.pick(p.schema.enum ?? ["video"]);
    } else {
      value = generate(p.schema, rng, gen, p.name);
    }
    req.pathParams.push({ name: p.name, value: encodeQueryPart(value ?? "") });
  }

  // Query parameters
  const signed = op.path.startsWith("/v2/uploads/") ? pickSignedUrl(rng, run, op.path) : null;
  if (signed) {
    req.query = [...signed.url.searchParams].map(([k, v]) => [
      encodeQueryPart(k),
      encodeQueryPart(v),
    ]);
    req.upload = signed;
  } else {
    for (const p of op.params.filter((x) => x.in === "query")) {
      if (p.name === "sync") continue; // credential, set below
      if (!p.required && !rng.chance(p.name === "organization_key" ? 1 : 0.35)) continue;
      const value = generate(p.schema, rng, gen, p.name);
      if (value === undefined) continue;
      const values = Array.isArray(value) ? value : [value];
      for (const v of values)
        req.query.push([encodeQueryPart(p.name), encodeQueryPart(v === null ? "" : v)]);
    }
  }
  fixups(rng, req, op);

  // Credentials
  const creds = credentialHeaders(rng, op, org, run);
  Object.assign(req.headers, creds.headers);
  for (const [k, v] of creds.query)
    if (!req.query.some(([name]) => name === k)) req.query.push([k, v]);

  // Body
  if (op.path.startsWith("/v2/uploads/")) {
    const planned = signed?.content;
    if (op.path === "/v2/uploads/part") {
      const expected = planned
        ? expectedPartSize(planned, Number(signed.url.searchParams.get("partNumber")))
        : 0;
      req.body =
        planned?.plannedBody && expected === planned.plannedBody.length
          ? planned.plannedBody
          : rng.bytes(Math.min(expected || rng.int(0, 4096), 300_000));
      req.contentType = rng.pick(["application/octet-stream", "video/mp4", null]);
    } else {
      const jpeg = jpegish(rng);
      req.body = jpeg.bytes;
      req.mutations.push(`body:${jpeg.kind}`);
      req.contentType = rng.pick(["image/jpeg", null]);
    }
  } else if (op.bodySchema) {
    let value = generate(op.bodySchema, rng, gen, "body");
    value = bodyFixups(rng, op, value, org, run, req);
    req.bodyValue = value;
    req.contentType =
      op.bodyTypes.length > 1 && rng.chance(0.3) ? op.bodyTypes[1] : op.bodyTypes[0];
  }

  // Files (media, thumbnails, feed files): HEAD, a valid Range, a known validator, as players send them
  if (
    op.method === "GET" &&
    op.auth === "public" &&
    /^\/(media|thumbnails)\/|\.json$/.test(op.path)
  ) {
    if (rng.chance(0.2)) req.method = "HEAD";
    if (rng.chance(0.3))
      req.headers.Range = rng.pick(["bytes=0-99", "bytes=100-", "bytes=-50", "bytes=0-0"]);
    if (run.state.etags.length && rng.chance(0.2))
      req.headers[rng.chance(0.7) ? "If-None-Match" : "If-Range"] = rng.pick(run.state.etags);
  }

  // Mutations
  const valid = rng.chance(run.options.validShare);
  if (!valid) {
    const count = rng.weighted([
      [6, 1],
      [3, 2],
      [1, 3],
    ]);
    for (let m = 0; m < count; m++) {
      const allowAuth = op.auth === "public" || run.authFailureBudget();
      const canCred = op.auth !== "public" && allowAuth;
      const kind = rng.weighted([
        [req.query.length || op.params.some((p) => p.in === "query") ? 5 : 1, "query"],
        [req.pathParams.length ? 3 : 1, "path"],
        [req.bodyValue !== undefined ? 4 : 0, "body-value"],
        [req.bodyValue !== undefined || req.body ? 3 : 0, "body-text"],
        [op.bodySchema || op.path.startsWith("/v2/uploads/") ? 0 : 1, "body-on-read"],
        [3, "headers"],
        [canCred ? 2 : 0, "credentials"],
        [1, "method"],
      ]);
      let label = null;
      if (kind === "query") label = mutateQuery(rng, req, allowAuth);
      else if (kind === "path") label = mutatePath(rng, req);
      else if (kind === "body-value") label = mutateBodyValue(rng, req.bodyValue, run);
      else if (kind === "body-text") {
        finalizeBody(req, run);
        label = req.upload ? mutateUploadBody(rng, req) : mutateBodyText(rng, req, run);
      } else if (kind === "body-on-read") {
        req.body = Buffer.from(rng.pick(['{"a":1}', "x".repeat(2 * 1024 * 1024), "garbage", "0"]));
        req.contentType = rng.pick(["application/json", "text/plain", null]);
        req.chunked = rng.chance(0.4);
        label = `body:on-${op.method} ${req.body.length}${req.chunked ? " chunked" : ""}`;
      } else if (kind === "headers") label = mutateHeaders(rng, req, op, allowAuth);
      else if (kind === "credentials") {
        label = mutateCredentials(rng, req, op, run);
        req.credMutated = true;
        req.authRisk = true;
      } else if (kind === "method") {
        req.method = rng.pick(OTHER_METHODS.filter((m) => m !== op.method));
        label = `method:${req.method}`;
      }
      if (label) req.mutations.push(label);
    }
  }
  finalizeBody(req, run);
  if (req.authRisk && op.auth !== "public") run.spendAuthFailure();
  return req;
}

export function mutateUploadBody(rng, req) {
  const kind = rng.weighted([
    [2, "off-by-one"],
    [1, "empty"],
    [1, "oversized"],
    [2, "chunked"],
    [1, "random"],
  ]);
  switch (kind) {
    case "off-by-one":
      req.body = rng.chance(0.5)
        ? Buffer.concat([req.body ?? Buffer.alloc(0), Buffer.from("x")])
        : (req.body ?? Buffer.alloc(1)).subarray(0, Math.max(0, (req.body?.length ?? 1) - 1));
      break;
    case "empty":
      req.body = Buffer.alloc(0);
      req.forceContentLength = true;
      break;
    case "oversized":
      req.body = rng.bytes(2 * 1024 * 1024);
      break;
    case "chunked":
      req.chunked = true;
      break;
    case "random":
      req.body = rng.bytes(rng.int(1, 100_000));
      break;
  }
  return `body:upload-${kind}`;
}

export function finalizeBody(req, run) {
  if (req.bodyValue !== undefined && req.bodyText === null) {
    req.bodyText = serializeJson(req.bodyValue, run.ctxRaw);
    if (req.body === null) req.body = Buffer.from(req.bodyText);
  }
}

export function expectedPartSize(content, partNumber) {
  const { chunkSize, contentSize } = content;
  if (!chunkSize || !contentSize || !partNumber) return 0;
  const parts = Math.ceil(contentSize / chunkSize);
  if (partNumber < parts) return chunkSize;
  if (partNumber === parts) return contentSize - chunkSize * (parts - 1);
  return 0;
}

export function pickSignedUrl(rng, run, path) {
  const candidates = [];
  for (const org of run.orgs) {
    for (const c of org.own) {
      if (path === "/v2/uploads/part")
        for (const u of c.signedUrls ?? []) candidates.push({ url: u, content: c, org });
      else if (c.thumbnailUploadUrl)
        candidates.push({ url: c.thumbnailUploadUrl, content: c, org });
    }
  }
  // prefer small contents whose parts are not uploaded yet
  const fresh = candidates.filter((x) => !x.content.etags?.length);
  const pool = fresh.length && rng.chance(0.7) ? fresh : candidates;
  if (!pool.length) return null;
  const chosen = rng.pick(pool.slice(-40));
  let url;
  try {
    url = new URL(chosen.url);
  } catch {
    return null;
  }
  // Only the path and query are used: the request goes to the loopback base URL whatever the host.
  if (url.pathname !== path) return null;
  return { ...chosen, url };
}

export function fixups(rng, req, op) {
  const set = (name, value) => {
    req.query = req.query.filter(([k]) => k !== name);
    if (value !== undefined) req.query.push([name, encodeQueryPart(value)]);
  };
  if (op.path === "/v2/analytics/{type}") {
    set("summary");
    set("detailed");
    set(rng.chance(0.5) ? "summary" : "detailed", "1");
    if (req.query.some(([k]) => k === "fields")) {
      const type = decodeURIComponentSafe(
        req.pathParams.find((p) => p.name === "type")?.value ?? "video",
      );
      const prefix =
        type === "ads"
          ? /^ad_/
          : type === "ecommerce"
            ? /^ecommerce_/
            : /^(video_|played_|thumbnail_)/;
      const fields = req.run.counters.filter((c) => prefix.test(c));
      if (type === "viewers") set("fields");
      else if (fields.length) set("fields", rng.sample(fields, rng.int(1, 3)).join(","));
    }
  }
  if (op.id === "DELETE /v2/viewers") {
    const tput = rng.chance(0.5);
    set("fingerprint", tput ? undefined : `fp${rng.string(6)}`);
    set("tput", tput ? `tput-${rng.string(6)}` : undefined);
  }
  if (op.path === "/prod/get_video_reports_combined") {
    const has = (k) => req.query.some(([name]) => name === k);
    if (has("sort_field")) {
      const sortField = decodeURIComponentSafe(req.query.find(([k]) => k === "sort_field")[1]);
      const columns = has("column_list")
        ? decodeURIComponentSafe(req.query.find(([k]) => k === "column_list")[1])
        : "";
      set(
        "column_list",
        [...new Set([sortField, ...columns.split(",").filter(Boolean)])].join(","),
      );
    }
  }
  if (op.path === "/prod/get_viewer_reports" && req.query.some(([k]) => k === "fingerprint_list")) {
    set("content_key");
    set("tput");
  }
}

export function bodyFixups(rng, op, value, org, run, req) {
  if (!value || typeof value !== "object") return value;
  if (op.id === "POST /v2/content") {
    // A small planned upload, so the part can really be sent and E2 can probe it.
    if (rng.chance(0.85)) {
      const media = mp4ish(rng);
      req.plannedBody = media.bytes.length ? media.bytes : Buffer.from("x");
      req.plannedKind = media.kind;
      value.contentSize = req.plannedBody.length;
    } else {
      value.contentSize = rng.pick([
        1,
        5 * 1024 * 1024,
        100_000_000,
        100_000_001,
        999_999_999_999,
        1_000_000_000_001,
      ]);
    }
    if (value.customFields === undefined && rng.chance(0.3))
      value.customFields = [{ season: rng.int(1, 4) }];
  }
  if (op.id === "PUT /v2/content") {
    const own = org?.own ?? [];
    if (own.length) value.contentKey = rng.pick(own).contentKey;
  }
  if (op.id === "POST /v2/content/complete") {
    const own = (org?.own ?? []).filter((c) => c.uploadId);
    const withParts = own.filter((c) => c.etags?.length);
    const c =
      withParts.length && rng.chance(0.8) ? rng.pick(withParts) : own.length ? rng.pick(own) : null;
    if (c) {
      value.uploadId = c.uploadId;
      value.key = c.key;
      value.parts = c.etags?.length
        ? c.etags.map((etag, i) => ({ PartNumber: i + 1, ETag: etag })).filter((p) => p.ETag)
        : [{ PartNumber: 1, ETag: `"${rng.string(32, "0123456789abcdef")}"` }];
      if (!value.parts.length) value.parts = [{ PartNumber: 1, ETag: '"x"' }];
    }
  }
  if (op.id === "POST /v2/content/thumbnail") {
    const own = org?.own ?? [];
    value.contentKey = own.length && rng.chance(0.8) ? rng.pick(own).contentKey : rng.string(8);
  }
  if (op.id === "POST /v2/events" && value.token !== undefined) {
    // a signed player token cannot be guessed: a wrong one is a failed authentication
    if (rng.chance(0.9)) delete value.token;
    else req.authRisk = true;
  }
  if (op.id === "POST /v2/events" && Array.isArray(value.events)) {
    const keys = [...run.state.publishedKeys, ...(org?.own ?? []).map((c) => c.contentKey)];
    for (const e of value.events) {
      if (keys.length) e.contentKey = rng.pick(keys);
      if (e.timestamp !== undefined && e.timestamp !== null)
        e.timestamp = new Date(Date.now() - rng.int(0, 3 * 86_400_000)).toISOString();
    }
  }
  if (op.id === "PATCH /admin/videos/{contentKey}" && Array.isArray(value.syndications)) {
    for (const s of value.syndications)
      if (s.stop_time && s.stop_time < s.start_time) s.stop_time = null;
  }
  if (op.id === "POST /admin/feeds/rebuild") {
    // exactly one of feedId, contentKey, all
    const which = rng.pick(["feedId", "contentKey", "all"]);
    for (const k of ["feedId", "contentKey", "all"]) if (k !== which) delete value[k];
    if (which === "feedId") value.feedId = rng.pick([...run.state.allFeedIds, rng.string(8)]);
    if (which === "contentKey")
      value.contentKey = rng.pick([...run.state.publishedKeys, rng.string(8)]);
    if (which === "all") {
      value.all = true;
      value.limit = Math.min(value.limit ?? 10, 10);
    }
  }
  return value;
}
