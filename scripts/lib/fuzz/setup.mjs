// Setup: the document, the organizations, a sub-organization, a feed and an ecommerce item each;
// what the service's answers teach the run.

import { excerptText, parseJson } from "./checks.mjs";
import { PLAN_LIMITS } from "./config.mjs";
import { decodeURIComponentSafe } from "./mutations.mjs";

export async function setupRun(run) {
  const { send, state } = run;
  const log = [];
  const json = (res) => (res.body ? parseJson(res.body) : { ok: false });
  const call = async (method, path, headers = {}, body) => {
    const b = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const res = await send({
      method,
      path,
      headers: {
        ...headers,
        ...(b && { "Content-Type": "application/json", "Content-Length": String(b.length) }),
      },
      body: b,
    });
    run.setupRequests++;
    return res;
  };
  const admin = run.adminToken ? { Authorization: `Bearer ${run.adminToken}` } : null;
  const writeHeaders = (o) => ({
    "X-Service-Sync-Code": o.syncCode,
    "X-Service-Api-Key": o.apiKey,
    "X-Service-Api-Secret": o.apiSecret,
  });

  // Fresh enterprise organizations with every entitlement (more rate-limit room; a clean state).
  if (admin) {
    for (let i = 0; i < run.options.freshOrganizations; i++) {
      const organizationKey = `fuzz-${run.seed}-${Date.now().toString(36)}-${i}`.slice(0, 64);
      const res = await call("POST", "/admin/organizations", admin, {
        organizationKey,
        plan: "enterprise",
        entitlements: run.entitlements,
        ...(run.network && { network: run.network }),
      });
      const body = json(res);
      if (res.status >= 200 && res.status < 300 && body.ok && body.value.credentials) {
        run.orgs.push(
          newOrg({ organizationKey, plan: "enterprise", ...body.value.credentials }, true),
        );
        state.protectedOrgKeys.add(organizationKey);
      } else
        log.push(
          `POST /admin/organizations ${organizationKey}: ${res.error ?? res.status} ${excerptText(res.body, 200)}`,
        );
    }
    // One organization for the destructive operator requests (PATCH, DELETE, rotate).
    const scratch = `fuzz-scratch-${run.seed}-${Date.now().toString(36)}`.slice(0, 64);
    const res = await call("POST", "/admin/organizations", admin, {
      organizationKey: scratch,
      plan: "standard",
    });
    if (res.status >= 200 && res.status < 300) state.scratchOrgs.push(scratch);
  }
  for (const org of run.orgs) {
    if (admin && !org.mmiKey && org.fresh) {
      const mmiKey = `fzmmi-${run.seed}-${org.organizationKey.slice(-6)}`.slice(0, 64);
      const res = await call(
        "POST",
        `/admin/organizations/${encodeURIComponent(org.organizationKey)}/sub-organizations`,
        admin,
        { name: "fuzz sub-organization", mmiKey },
      );
      if (res.status >= 200 && res.status < 300) org.mmiKey = mmiKey;
      else
        log.push(
          `sub-organization of ${org.organizationKey}: ${res.error ?? res.status} ${excerptText(res.body, 200)}`,
        );
    }
    // What the organization already has: protected from the fuzzer's destructive requests.
    const list = await call("GET", "/v2/videos/?pageSize=100", {
      "X-Service-Sync-Code": org.syncCode,
    });
    const lb = json(list);
    if (list.status === 200 && lb.ok) learnListing(run, lb.value, true);
    else log.push(`GET /v2/videos/ as ${org.organizationKey}: ${list.error ?? list.status}`);
    if (org.apiKey) {
      const feeds = await call("GET", "/v2/feeds", writeHeaders(org));
      const fb = json(feeds);
      const items = fb.ok
        ? Array.isArray(fb.value)
          ? fb.value
          : (fb.value.feeds ?? fb.value.data ?? [])
        : [];
      for (const f of items) {
        const id = f.feed_id ?? f.feedId;
        if (id) {
          org.feedIds.push(id);
          state.protectedFeedIds.add(id);
          state.allFeedIds.add(id);
        }
      }
      if (org.fresh) {
        const created = await call("POST", "/v2/feeds", writeHeaders(org), {
          name: "fuzz feed",
          configuration: { tags: [...state.names.tags].slice(0, 2), categories: [], events: [] },
        });
        const cb = json(created);
        if (created.status < 300 && cb.ok && cb.value.feed_id) {
          org.feedIds.push(cb.value.feed_id);
          state.protectedFeedIds.add(cb.value.feed_id);
          state.allFeedIds.add(cb.value.feed_id);
        }
        const item = await call("POST", "/v2/ecommerce", writeHeaders(org), {
          ecommerceKey: `ek_${run.seed}`,
          ecommerceLink: "https://example.com/p",
          ecommerceName: "fuzz item",
        });
        if (item.status < 300) org.ecommerceKeys.push(`ek_${run.seed}`);
      }
    }
  }
  for (const k of run.orgs.flatMap((o) => o.contentKeys)) state.protectedContentKeys.add(k);
  return log;
}

export function learnListing(run, value, protect) {
  const { state } = run;
  for (const v of Array.isArray(value?.data) ? value.data : []) {
    if (typeof v?.contentKey === "string") {
      state.publishedKeys.add(v.contentKey);
      if (protect) state.protectedContentKeys.add(v.contentKey);
    }
    for (const kind of ["tags", "categories", "events"])
      for (const n of Array.isArray(v?.[kind]) ? v[kind] : [])
        if (typeof n === "string" && state.names[kind].size < 60) state.names[kind].add(n);
    for (const cf of Array.isArray(v?.customFields) ? v.customFields : [])
      for (const k of Object.keys(cf ?? {}))
        if (state.names.customFieldNames.size < 30) state.names.customFieldNames.add(k);
  }
}

export function newOrg(o, fresh = false) {
  return {
    organizationKey: o.organizationKey,
    syncCode: o.syncCode,
    apiKey: o.apiKey,
    apiSecret: o.apiSecret,
    apiToken: o.apiToken,
    mmiKey: o.mmiKey,
    plan: o.plan ?? "enterprise",
    limit: o.limitPerMinute ?? PLAN_LIMITS[o.plan ?? "enterprise"] ?? 100,
    contentKeys: [...(o.contentKeys ?? [])],
    feedIds: [...(o.feedIds ?? [])],
    ecommerceKeys: [],
    own: [],
    ownFeeds: [],
    fresh,
    minute: -1,
    used: 0,
  };
}

/** Learns from a successful answer: created content, upload URLs and ETags, feeds, listings. */
export function harvest(run, req, sent, res) {
  const { state } = run;
  const org = req.org;
  const etag = res.headers.etag;
  if (etag && state.etags.length < 20 && !state.etags.includes(etag)) state.etags.push(etag);
  if (org && res.headers["ratelimit-remaining"] !== undefined && !req.credMutated) {
    const limit = Number(res.headers["ratelimit-limit"]);
    const remaining = Number(res.headers["ratelimit-remaining"]);
    if (Number.isFinite(limit) && limit > 0) org.limit = limit;
    if (Number.isFinite(remaining) && org.minute === currentMinute())
      org.used = Math.max(org.used, org.limit - remaining);
  }
  if (res.status < 200 || res.status >= 300 || !res.body?.length || req.method !== req.op.method)
    return;
  const parsed = /json/.test(String(res.headers["content-type"]))
    ? parseJson(res.body)
    : { ok: false };
  const v = parsed.ok ? parsed.value : null;
  const id = req.op.id;
  if (id === "POST /v2/content" && org && v?.contentKey && v.contentUploadData) {
    const cud = v.contentUploadData;
    const requested =
      req.bodyValue && typeof req.bodyValue === "object" ? req.bodyValue.contentSize : undefined;
    org.own.push({
      contentKey: v.contentKey,
      uploadId: cud.uploadId,
      key: cud.key,
      chunkSize: cud.chunkSize,
      contentSize: typeof requested === "number" ? requested : undefined,
      signedUrls: Array.isArray(cud.signedUrls) ? cud.signedUrls.slice(0, 3) : [],
      thumbnailUploadUrl: v.thumbnailUploadUrl,
      plannedBody:
        req.plannedBody && typeof requested === "number" && requested === req.plannedBody.length
          ? req.plannedBody
          : null,
      etags: [],
    });
    if (org.own.length > 40) org.own.shift();
  } else if (id === "POST /v2/content/thumbnail" && org && v?.thumbnailUploadUrl) {
    const c = org.own.find((x) => x.contentKey === v.contentKey);
    if (c) c.thumbnailUploadUrl = v.thumbnailUploadUrl;
  } else if (id === "PUT /v2/uploads/part" && req.upload && etag) {
    const n = Number(req.upload.url.searchParams.get("partNumber"));
    if (n >= 1 && n <= 3) req.upload.content.etags[n - 1] = etag;
  } else if (id === "POST /v2/feeds" && org && v?.feed_id) {
    org.ownFeeds.push(v.feed_id);
    state.allFeedIds.add(v.feed_id);
  } else if (id === "DELETE /v2/feeds/{feed_id}" && org) {
    const fid = decodeURIComponentSafe(req.pathParams[0]?.value ?? "");
    org.ownFeeds = org.ownFeeds.filter((f) => f !== fid);
  } else if (id === "DELETE /v2/content" && org) {
    const key = decodeURIComponentSafe(req.query.find(([k]) => k === "contentKey")?.[1] ?? "");
    org.own = org.own.filter((c) => c.contentKey !== key);
  } else if (
    id === "POST /v2/ecommerce" &&
    org &&
    req.bodyValue?.ecommerceKey &&
    org.ecommerceKeys.length < 20
  ) {
    org.ecommerceKeys.push(req.bodyValue.ecommerceKey);
  } else if (
    id === "POST /admin/organizations" &&
    typeof req.bodyValue?.organizationKey === "string" &&
    state.scratchOrgs.length < 50
  ) {
    state.scratchOrgs.push(req.bodyValue.organizationKey);
  } else if ((id === "GET /v2/videos" || id === "GET /get_videos") && v) {
    learnListing(run, v, false);
  }
}

export const currentMinute = () => Math.floor(Date.now() / 60_000);
