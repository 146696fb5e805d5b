// Mutations of a generated request: query, path, body (values and text), headers, credentials.
import {
  deepJson,
  longString,
  nastyJsonValue,
  nastyString,
  serializeJson,
  TRAVERSAL,
} from "./odd-values.mjs";
import { CONTENT_TYPES, encodeQueryPart, encodeRaw, headerSafe, RANGES } from "./requests.mjs";
import { COUNTRIES, customFieldsNasty, filterNasty } from "./values.mjs";

export const AUTH_PARAMS = new Set(["organization_key", "sync"]);

export function mutateQuery(rng, req, allowAuth) {
  const params = allowAuth ? req.query : req.query.filter(([k]) => !AUTH_PARAMS.has(k));
  const kind = rng.weighted([
    [5, "value"],
    [2, "repeat"],
    [1, "repeat-many"],
    [1, "drop"],
    [1, "unknown"],
    [1, "no-equals"],
    [1, "junk-separators"],
    [1, "encoded-name"],
  ]);
  if (
    (kind === "value" || kind === "repeat" || kind === "drop" || kind === "repeat-many") &&
    !params.length
  )
    return null;
  switch (kind) {
    case "value": {
      const i = req.query.indexOf(rng.pick(params));
      const name = decodeURIComponentSafe(req.query[i][0]);
      if (AUTH_PARAMS.has(name)) req.authRisk = true;
      let label;
      let value;
      let raw = false;
      if (
        /^(tags|categories|events|privateTags|privateCategories|tagString|categoryString|searchString|titleString)$/.test(
          name,
        ) &&
        rng.chance(0.6)
      ) {
        value = filterNasty(rng);
        label = "filter";
        raw = rng.chance(0.4);
      } else if (name === "customFields" && rng.chance(0.7)) {
        value = customFieldsNasty(rng);
        label = "customFields";
        raw = rng.chance(0.5);
      } else {
        const n = nastyString(rng);
        value = n.value;
        raw = Boolean(n.raw);
        label = n.family;
      }
      req.query[i] = [req.query[i][0], raw ? encodeRaw(value) : encodeQueryPart(value)];
      return `query:${name}=${label}${raw ? "(raw)" : ""}`;
    }
    case "repeat": {
      const [name, value] = rng.pick(params);
      const n = nastyString(rng);
      if (AUTH_PARAMS.has(name)) req.authRisk = true;
      req.query.push([name, rng.chance(0.5) ? value : encodeQueryPart(n.value)]);
      return `query:repeat ${decodeURIComponentSafe(name)}`;
    }
    case "repeat-many": {
      const [name, value] = rng.pick(params);
      // at most ~200 KB of query: past ~64 KB the runtime answers 431 anyway
      const count = Math.max(
        2,
        Math.min(rng.pick([50, 500]), Math.floor(200_000 / (name.length + value.length + 2))),
      );
      for (let i = 0; i < count; i++) req.query.push([name, value]);
      return `query:repeat ${decodeURIComponentSafe(name)} x${count}`;
    }
    case "drop": {
      const dropped = rng.pick(params);
      req.query.splice(req.query.indexOf(dropped), 1);
      return `query:drop ${decodeURIComponentSafe(dropped[0])}`;
    }
    case "unknown": {
      const name = rng.pick([
        "x",
        "__proto__",
        "constructor",
        "page[]",
        "a.b",
        "debug",
        "callback",
        ...(allowAuth ? ["organization_key", "sync"] : []),
      ]);
      if (AUTH_PARAMS.has(name)) req.authRisk = true;
      req.query.push([encodeQueryPart(name), encodeQueryPart(nastyString(rng).value)]);
      return `query:unknown ${name}`;
    }
    case "no-equals":
      req.rawQuerySuffix = rng.pick([
        "&flag",
        "&=",
        "&&&",
        "&=&=",
        "&a=1=2",
        "&;",
        "&a[b]=1",
        "&%=%",
      ]);
      return "query:malformed";
    case "junk-separators":
      req.rawQueryPrefix = rng.pick(["&", "&&", "?", ";", "#x"]);
      return "query:junk";
    default:
      req.query.push([rng.pick(["%", "%E0%A4%A", "%00", "t%61gs", "tags%00", "pageSize%20"]), "1"]);
      return "query:odd-name";
  }
}

export function decodeURIComponentSafe(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function mutatePath(rng, req) {
  if (!req.pathParams.length) {
    // odd path shapes around a fixed route
    req.pathSuffix = rng.pick([
      "/",
      "//",
      "/..",
      "/../openapi.json",
      "/%2e%2e/",
      "/x",
      "%00",
      ";x",
      "/.",
      "%20",
      "%2F",
    ]);
    return `path:suffix ${req.pathSuffix}`;
  }
  const i = rng.int(0, req.pathParams.length - 1);
  const n = rng.chance(0.2)
    ? { family: "traversal", value: rng.pick(TRAVERSAL), raw: true }
    : nastyString(rng);
  req.pathParams[i].value = n.raw ? encodeRaw(n.value) : encodeQueryPart(n.value);
  return `path:${req.pathParams[i].name}=${n.family}${n.raw ? "(raw)" : ""}`;
}

/** Replaces one value somewhere in the JSON body (walks into objects and arrays). */
export function mutateBodyValue(rng, body, run) {
  if (body === null || typeof body !== "object") return null;
  const paths = [];
  const walk = (node, path, depth) => {
    if (depth > 5) return;
    for (const [k, v] of Object.entries(node)) {
      paths.push([node, k, [...path, k]]);
      if (v && typeof v === "object") walk(v, [...path, k], depth + 1);
    }
  };
  walk(body, [], 0);
  const action = rng.weighted([
    [paths.length ? 6 : 0, "replace"],
    [paths.length ? 2 : 0, "delete"],
    [1, "add"],
    [paths.length ? 1 : 0, "large-array"],
  ]);
  if (action === "add") {
    const key = rng.pick([
      "unknown",
      "__proto__",
      "constructor",
      "status",
      "organization_id",
      "id",
      "removed",
      "😀",
      "",
    ]);
    body[key] = nastyJsonValue(rng, run.ctxRaw);
    return `body:add ${key || '""'}`;
  }
  const [node, key, path] = rng.pick(paths);
  if (action === "delete") {
    delete node[key];
    return `body:delete ${path.join(".")}`;
  }
  if (action === "large-array") {
    const item =
      Array.isArray(node[key]) && node[key].length
        ? node[key][0]
        : typeof node[key] === "string"
          ? node[key]
          : rng.pick(["x", 1, {}]);
    node[key] = Array.from({ length: rng.pick([1000, 5000, 10_001]) }, (_, i) =>
      typeof item === "string" ? `${item}${i}` : item,
    );
    return `body:large-array ${path.join(".")}`;
  }
  node[key] = nastyJsonValue(rng, run.ctxRaw);
  return `body:replace ${path.join(".")}`;
}

export const INVALID_JSON = [
  "{a:1}",
  '{"a":1,}',
  "{'a':'x'}",
  '{"a":1}}',
  '{"a":1}{"b":2}',
  "{",
  "}",
  "[",
  '"',
  "nul",
  "NaN",
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"line\nbreak"}',
  "\u0000",
  '{"a":1}\u0000',
  "// comment\n{}",
  '{"a":1 /* c */}',
  "\uFEFF{}",
  "[1,2,]",
  '{"":}',
];

/** Whole-body mutations (text level). Returns a label. */
export function mutateBodyText(rng, req, run) {
  const kind = rng.weighted([
    [2, "truncate"],
    [2, "invalid"],
    [1, "non-object"],
    [1, "deep"],
    [1, "duplicate-keys"],
    [1, "oversized"],
    [1, "empty"],
    [1, "bad-utf8"],
    [1, "bom"],
    [1, "chunked"],
    [1, "huge-strings"],
  ]);
  const text = req.bodyText ?? "{}";
  switch (kind) {
    case "truncate":
      req.body = Buffer.from(text.slice(0, rng.int(0, Math.max(0, text.length - 1))));
      break;
    case "invalid":
      req.body = Buffer.from(rng.pick(INVALID_JSON));
      break;
    case "non-object":
      req.body = Buffer.from(
        rng.pick(["null", "[]", '"str"', "123", "true", "[{}]", '[{"a":1}]', "1e400", "-0"]),
      );
      break;
    case "deep":
      req.body = Buffer.from(
        rng.chance(0.5)
          ? deepJson(rng, rng.pick([1000, 1000, 10_000]))
          : text.replace(/^\{/, `{"deep":${deepJson(rng, 1000)},`),
      );
      break;
    case "duplicate-keys": {
      const obj =
        req.bodyValue && typeof req.bodyValue === "object" && !Array.isArray(req.bodyValue)
          ? req.bodyValue
          : {};
      const keys = Object.keys(obj);
      const key = keys.length ? rng.pick(keys) : "a";
      const dup =
        JSON.stringify(key) + ":" + serializeJson(nastyJsonValue(rng, run.ctxRaw), run.ctxRaw);
      req.body = Buffer.from(
        text.length > 2 && text.startsWith("{")
          ? rng.chance(0.5)
            ? `{${dup},${text.slice(1)}`
            : `${text.slice(0, -1)},${dup}}`
          : `{${dup},${dup}}`,
      );
      return `body:duplicate-key ${key}`;
    }
    case "oversized": {
      const size = rng.pick([1024 * 1024 + 1, 2 * 1024 * 1024]);
      req.body = Buffer.from(
        rng.chance(0.5) ? `{"title":"${"a".repeat(size)}"}` : text + " ".repeat(size),
      );
      if (rng.chance(0.3)) req.chunked = true;
      return `body:oversized ${req.body.length}${req.chunked ? " chunked" : ""}`;
    }
    case "empty":
      req.body = Buffer.alloc(0);
      req.forceContentLength = true;
      break;
    case "bad-utf8":
      req.body = Buffer.concat([
        Buffer.from(text.slice(0, -1).replace(/"$/, "")),
        Buffer.from(rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0xa4]])),
        Buffer.from(text.slice(-1)),
      ]);
      break;
    case "bom":
      req.body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
      break;
    case "chunked":
      req.chunked = true;
      break;
    case "huge-strings":
      req.body = Buffer.from(
        text.replace(/"([^"\\]{1,40})"(?=\s*[,}\]])/g, () =>
          JSON.stringify(longString(rng, rng.pick([5000, 100_000]))),
        ),
      );
      break;
  }
  return `body:${kind}`;
}

export function mutateHeaders(rng, req, op, allowAuth) {
  const media = /^\/(media|thumbnails)\//.test(op.path) || op.path.endsWith(".json");
  const kind = rng.weighted([
    [media ? 5 : 1, "range"],
    [media ? 2 : 1, "if-range"],
    [2, "if-none-match"],
    [op.path === "/v2/videos" || op.path === "/get_videos" ? 4 : 1, "country"],
    [1, "content-type"],
    [1, "accept"],
    [1, "user-agent"],
    [allowAuth ? 1 : 0, "mmi"],
    [1, "misc"],
    [1, "connecting-ip"],
  ]);
  const h = req.headers;
  switch (kind) {
    case "range":
      h.Range = rng.chance(0.2) ? [rng.pick(RANGES), rng.pick(RANGES)] : rng.pick(RANGES);
      if (rng.chance(0.3))
        h["If-Range"] = rng.pick([
          '"junk"',
          'W/"x"',
          "Wed, 21 Oct 2015 07:28:00 GMT",
          "garbage",
          ...req.run.state.etags,
        ]);
      return `header:Range ${JSON.stringify(h.Range)}`;
    case "if-range":
      h.Range = "bytes=0-99";
      h["If-Range"] = rng.pick([
        '"junk"',
        'W/"x"',
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "Thu, 01 Jan 2099 00:00:00 GMT",
        "",
        "*",
        '"',
        "a".repeat(5000),
        ...req.run.state.etags,
      ]);
      return "header:If-Range";
    case "if-none-match":
      h["If-None-Match"] = rng.pick([
        "*",
        '"junk"',
        'W/"x"',
        '"a", "b"',
        '"',
        "a".repeat(10_000),
        "W/",
        '"\u00ff"',
        ", , ,",
        ...req.run.state.etags,
      ]);
      return "header:If-None-Match";
    case "country":
      h["CF-IPCountry"] = headerSafe(
        rng.chance(0.8) ? rng.pick(COUNTRIES) : nastyString(rng).value,
      );
      return `header:CF-IPCountry ${h["CF-IPCountry"].slice(0, 20)}`;
    case "content-type":
      req.contentType = rng.pick(CONTENT_TYPES);
      return `header:Content-Type ${req.contentType}`;
    case "accept":
      h.Accept = rng.pick([
        "text/html",
        "application/xml",
        "*/*;q=0",
        "image/*",
        "application/json;q=abc",
      ]);
      if (rng.chance(0.5))
        h["Accept-Encoding"] = rng.pick(["gzip", "br", "deflate", "identity;q=0", "*"]);
      return "header:Accept";
    case "user-agent":
      h["User-Agent"] = headerSafe(
        rng.pick([
          "",
          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)",
          "x".repeat(8000),
          "Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0)",
          nastyString(rng).value,
          "() { :; }; echo vulnerable",
        ]),
      );
      return "header:User-Agent";
    case "mmi":
      req.authRisk = true;
      h["X-Service-MMI-Key"] = headerSafe(rng.chance(0.5) ? rng.string(8) : nastyString(rng).value);
      return "header:X-Service-MMI-Key";
    case "connecting-ip":
      h["CF-Connecting-IP"] = headerSafe(
        rng.pick(["", "::1", "999.999.999.999", "a".repeat(65), "127.0.0.1, 10.0.0.1", "😀"]),
      );
      return "header:CF-Connecting-IP";
    default:
      h[
        rng.pick([
          "X-Forwarded-For",
          "Origin",
          "Referer",
          "X-Service-Player-Token",
          "Cookie",
          "X-HTTP-Method-Override",
          "Expect",
        ])
      ] = headerSafe(nastyString(rng).value || "x");
      return "header:misc";
  }
}

/** Credential mutations: sent at most authFailuresPerMinute a minute (the service throttles failures per address). */
export function mutateCredentials(rng, req, op, run) {
  const h = req.headers;
  const org = req.org;
  const others = run.orgs.filter((o) => o !== org);
  const kind = rng.weighted([
    [2, "none"],
    [2, "wrong"],
    [1, "garbled"],
    [1, "padded"],
    [1, "duplicate"],
    [1, "scheme"],
    [others.length ? 2 : 0, "other-org"],
  ]);
  const credNames = [
    "X-Service-Sync-Code",
    "X-Service-Api-Key",
    "X-Service-Api-Secret",
    "Authorization",
  ];
  switch (kind) {
    case "none":
      for (const n of credNames) delete h[n];
      req.query = req.query.filter(([k]) => k !== "sync" && k !== "organization_key");
      break;
    case "wrong": {
      const present = credNames.filter((n) => h[n]);
      if (present.length) {
        const n = rng.pick(present);
        h[n] = n === "Authorization" ? `Bearer ${rng.string(20)}` : rng.string(12);
      } else if (op.auth === "orgkey") {
        req.query = req.query.map(([k, v]) =>
          k === "organization_key" ? [k, rng.string(8)] : [k, v],
        );
      } else h["X-Service-Sync-Code"] = rng.string(12);
      break;
    }
    case "garbled": {
      const n = rng.pick(credNames.filter((x) => h[x]).concat(["X-Service-Sync-Code"]));
      h[n] = headerSafe(
        rng.pick([
          nastyString(rng).value,
          "a".repeat(10_000),
          `${h[n] ?? ""}\u00e9`,
          `${h[n] ?? ""}\u0000`,
        ]),
      );
      break;
    }
    case "padded": {
      const n = rng.pick(credNames.filter((x) => h[x]).concat(["X-Service-Sync-Code"]));
      // An earlier mutation may have left the header repeated (an array): pad its first value.
      const v = String((Array.isArray(h[n]) ? h[n][0] : h[n]) ?? org?.syncCode ?? "x");
      h[n] = rng.pick([` ${v} `, v.toUpperCase(), `${v}\t`, `${v}x`, v.slice(0, -1)]);
      break;
    }
    case "duplicate": {
      const n = rng.pick(credNames.filter((x) => h[x]).concat(["X-Service-Sync-Code"]));
      h[n] = [h[n] ?? "x", others.length ? others[0].syncCode : rng.string(8)];
      break;
    }
    case "scheme":
      h.Authorization = rng.pick([
        "Bearer",
        "Bearer ",
        "Basic ZGVtbzpkZW1v",
        `bearer ${org?.apiToken ?? run.adminToken ?? "x"}`,
        `Token ${org?.apiToken ?? "x"}`,
        `Bearer ${org?.apiToken ?? "x"}, Bearer x`,
        `Bearer  ${run.adminToken ?? "x"}`,
        `Bearer ${run.adminToken ?? "x"}x`,
      ]);
      break;
    case "other-org": {
      const other = rng.pick(others);
      if (op.auth === "orgkey") h["X-Service-Sync-Code"] = other.syncCode;
      else if (h["X-Service-Api-Secret"])
        h["X-Service-Api-Secret"] = other.apiSecret ?? rng.string(8);
      else if (h.Authorization) h["X-Service-Sync-Code"] = other.syncCode;
      else h["X-Service-Sync-Code"] = other.syncCode;
      break;
    }
  }
  return `cred:${kind}`;
}
