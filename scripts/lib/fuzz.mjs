// A request fuzzer for the whole OpenAPI document of the worker (`npm run fuzz`, and the e2e test
// test/e2e/fuzz.test.ts). Loopback servers only; plain Node 20, no dependencies.
//
// For every operation of /openapi.json it generates requests that look valid (values from the
// schemas, plus what the service's own answers taught it: content keys, signed upload URLs, feed
// ids), then mutates them: odd strings (empty, 100 KB, emoji, RTL override, combining marks,
// control characters, NUL, broken percent-encoding, ../, SQL and FTS5 syntax), numbers at and past
// their limits, wrong JSON types, deep nesting, huge arrays, duplicated keys, wrong Content-Types,
// truncated, invalid and oversized bodies, repeated query parameters, odd headers (Range, If-Range,
// If-None-Match, CF-IPCountry, ...) and wrong, missing or garbled credentials. The E6 filter syntax
// (tags, categories, events, searchString, customFields) gets a generator of its own.
//
// What it reports: counts by status class and by operation; every 5xx, timeout and connection
// error; every error answer (4xx/5xx) whose body is not the documented shape (content endpoints
// `{message}`, every other `{status: "KO", error}`); every answer without
// `X-Content-Type-Options: nosniff` (a warning). `findings` counts what fails a run: 5xx,
// timeouts, connection errors, shape violations. Answers that the local runtime gave instead of
// the worker (e.g. wrangler's 431 for a request head over ~64 KB: text/plain, none of the
// worker's headers) are listed apart. 429s are counted apart (plan limit vs failed-authentication throttle): the
// fuzzer keeps every organization under its plan's per-minute limit and deliberate credential
// failures under the per-address throttle, so 429 is not what it measures.
//
// Safety: it only ever connects to the loopback host and port of baseUrl ("localhost" must
// resolve to a loopback address; signed URLs are used for their path and query only). It never
// deletes, patches or rotates the credentials of the organizations it uses or was given (demo and
// partner included), and never deletes or changes the content and feeds those already had:
// destructive requests only target what the fuzzer created itself, or keys that do not exist.
//
// Reproducibility: request i is generated from a PRNG seeded with `${seed}:${i}`; what it picks
// from the resources learnt from earlier answers (created content keys, upload URLs) depends on
// timing with several requests in flight. Every finding carries a curl line.
import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import zlib from "node:zlib";
import { ALL_ENTITLEMENTS } from "./entitlements.mjs";

// ---------------------------------------------------------------------------------------------
// Loopback, credentials, defaults

export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/** Whether url is http://127.0.0.1, localhost or [::1] (any port), with nothing else in its authority. */
export function isLoopbackUrl(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return (
    u.protocol === "http:" && LOOPBACK_HOSTS.includes(u.hostname) && !u.username && !u.password
  );
}

/** The demo organizations of `npm run dev` (README "Demo credentials"). */
export const DEMO_CREDENTIALS = {
  adminToken: "dev-admin-token",
  network: "demo-network",
  organizations: [
    {
      organizationKey: "demo",
      syncCode: "demo-sync",
      apiKey: "demo-key",
      apiSecret: "demo-secret",
      apiToken: "demo-token",
      mmiKey: "demo-mmi",
      plan: "enterprise",
    },
    {
      organizationKey: "partner",
      syncCode: "partner-sync",
      apiKey: "partner-key",
      apiSecret: "partner-secret",
      apiToken: "partner-token",
      plan: "standard",
    },
  ],
  protectedOrganizations: ["demo", "partner"],
};

export const DEFAULTS = {
  requests: 1000,
  seconds: 120,
  concurrency: 4,
  timeoutMs: 30_000,
  /** Fresh enterprise organizations created through the operator API for the run (traffic spreads over them). */
  freshOrganizations: 2,
  /** Share of a plan's per-minute limit the fuzzer uses per organization. */
  rateLimitShare: 0.85,
  /** Requests with deliberately wrong credentials per minute (the service throttles 30 failures/min per address). */
  authFailuresPerMinute: 15,
  /** Share of requests sent without any mutation. */
  validShare: 0.25,
};

const PLAN_LIMITS = { enterprise: 1000, standard: 100 };
const MAX_KEEP_BYTES = 256 * 1024;
const EXCERPT = 300;

// ---------------------------------------------------------------------------------------------
// PRNG (mulberry32 over an FNV-1a hash of the seed)

function hashSeed(seed) {
  const s = String(seed);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function createRng(seed) {
  let a = hashSeed(seed);
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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

// ---------------------------------------------------------------------------------------------
// Odd values

const UNICODE = [
  "😀",
  "👨‍👩‍👧‍👦",
  "\u202Eevil\u202C",
  "\u202Egpj.exe",
  "e\u0301\u0302\u0303\u0304\u0305",
  "Z\u0334\u0321\u0322\u031b\u0354a\u0336l\u0337g\u0335o",
  "日本語テキスト",
  "\uFEFFbom",
  "zero\u200Bwidth",
  "\u{1D57F}\u{1D58A}\u{1D598}\u{1D599}",
  "\uD800",
  "\uDFFF",
  "\uFFFF",
  "\uFFFD",
  "İstanbul",
  "ßﬃ",
  "مرحبا",
  "\u0085\u2028\u2029",
];
const CONTROL = [
  "\u0001",
  "\u001f",
  "\u007f",
  "a\u0008b",
  "\u001b[31mred",
  "\r\n",
  "\n",
  "\t",
  "a\rb",
  "\u000b\u000c",
];
const NUL = ["\u0000", "a\u0000b", "\u0000\u0000\u0000", "demo0001\u0000"];
// Inserted into URLs as they are (not encoded again).
const PERCENT = [
  "%",
  "%E0%A4%A",
  "%00",
  "%%",
  "%zz",
  "%C0%AF",
  "%FF",
  "%252C",
  "%2C",
  "%7C",
  "%21",
  "%u0041",
  "%E0%A4",
  "%ED%A0%80",
  "%F0%9F%98",
  "a%2",
  "%0D%0AX-Injected:%201",
  "%2e%2e%2f",
  "%5B%7B",
];
const TRAVERSAL = [
  "../",
  "../../../../etc/passwd",
  "..%2F..%2F",
  "..\\..\\",
  "%2e%2e%2f",
  "....//",
  "/",
  "//",
  "./",
  "..",
  "%2e%2e",
  "a/../b",
  ".%00.",
  "..;/",
];
const SQL = [
  '"',
  "'",
  "*",
  "NEAR(",
  "OR",
  ")",
  "(",
  "' OR '1'='1",
  '" OR ""="',
  'a" OR b',
  "NEAR(a b, 2)",
  "^a",
  "a:b",
  "-a",
  "{a b}",
  "AND",
  "NOT",
  "a*",
  "*a",
  '"unterminated',
  "'; DROP TABLE contents; --",
  "1; SELECT 1",
  "title:*",
  "a NOT b",
  "a + b",
  "\\",
  "%_",
  "_",
  "a OR b AND c",
  "NEAR/2",
  "a AND",
  "OR OR OR",
  '""',
  "()",
  "x' UNION SELECT sqlite_version() --",
];
const NUMBERS = [
  "0",
  "-1",
  "2147483647",
  "2147483648",
  "-2147483649",
  "4294967296",
  "9007199254740992",
  "9007199254740993",
  "1e308",
  "1e309",
  "-1e308",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "0x1A",
  "1.5",
  "01",
  "1_000",
  "+1",
  " 1",
  "1 ",
  "١٢٣",
  "0.0000001",
  "99999999999999999999999",
  "1e-400",
];
const TYPE_WORDS = [
  "true",
  "false",
  "null",
  "undefined",
  "[]",
  "{}",
  "[1,2]",
  '{"a":1}',
  "__proto__",
  "constructor",
  "toString",
];
const MISC = [
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "%s%s%n",
  "{{7*7}}",
  "javascript:alert(1)",
  "file:///etc/passwd",
  "http://169.254.169.254/",
  " ",
  "   ",
  "\t",
  " a ",
];

/** A string of about `bytes` UTF-8 bytes. */
function longString(rng, bytes) {
  const unit = rng.pick(["a", "é", "😀", "%", ",", "|", "a,", "a|", " ", "x"]);
  return unit.repeat(Math.max(1, Math.floor(bytes / Buffer.byteLength(unit))));
}

function longLength(rng) {
  return rng.weighted([
    [4, rng.int(201, 2100)],
    [3, rng.int(2101, 20_000)],
    [2, rng.int(20_001, 60_000)],
    [1, 100_000],
  ]);
}

/** One odd string and the name of its family. raw: insert into a URL without encoding. */
function nastyString(rng) {
  const family = rng.weighted([
    [1, "empty"],
    [2, "long"],
    [3, "unicode"],
    [2, "control"],
    [1, "nul"],
    [3, "percent"],
    [2, "traversal"],
    [3, "sql"],
    [3, "number"],
    [1, "typeword"],
    [1, "misc"],
  ]);
  switch (family) {
    case "empty":
      return { family, value: "" };
    case "long":
      return { family, value: longString(rng, longLength(rng)) };
    case "unicode":
      return { family, value: rng.pick(UNICODE) };
    case "control":
      return { family, value: rng.pick(CONTROL) };
    case "nul":
      return { family, value: rng.pick(NUL) };
    case "percent":
      return { family, value: rng.pick(PERCENT), raw: rng.chance(0.7) };
    case "traversal":
      return { family, value: rng.pick(TRAVERSAL), raw: rng.chance(0.5) };
    case "sql":
      return { family, value: rng.pick(SQL) };
    case "number":
      return { family, value: rng.pick(NUMBERS) };
    case "typeword":
      return { family, value: rng.pick(TYPE_WORDS) };
    default:
      return { family, value: rng.pick(MISC) };
  }
}

// JSON values that a string (or number, ...) field should not be; RAW tokens are spliced into the
// JSON text as they are (1e400 parses to Infinity, -0, 2^53+1 loses precision).
const RAW_JSON_NUMBERS = [
  "0",
  "-1",
  "2147483648",
  "9007199254740993",
  "1e308",
  "1e400",
  "-1e400",
  "-0",
  "1.5",
  "0.1e-400",
  "123456789012345678901234567890",
];

function nastyJsonValue(rng, ctx) {
  return rng.weighted([
    [4, () => nastyString(rng).value],
    [2, () => rawJson(ctx, rng.pick(RAW_JSON_NUMBERS))],
    [1, () => true],
    [1, () => false],
    [2, () => null],
    [1, () => []],
    [1, () => ({})],
    [1, () => [rng.pick(["a", 1, null, {}])]],
    [1, () => ({ a: 1, __proto__x: "y" })],
    [1, () => rawJson(ctx, deepJson(rng, rng.pick([200, 1000, 1000, 5000])))],
    [
      1,
      () =>
        Array.from({ length: rng.pick([1000, 5000]) }, (_, i) => (rng.chance(0.5) ? `v${i}` : i)),
    ],
  ])();
}

function deepJson(rng, depth) {
  return rng.chance(0.5)
    ? "[".repeat(depth) + "]".repeat(depth)
    : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** A marker string standing for raw JSON text; serializeJson splices it back. */
function rawJson(ctx, text) {
  const id = `\u0001RAW${ctx.raw.length}\u0001`;
  ctx.raw.push(text);
  return id;
}

function serializeJson(value, ctx) {
  let text = JSON.stringify(value);
  if (text === undefined) return "";
  if (ctx.raw.length)
    text = text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_, n) => ctx.raw[Number(n)]);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Fake media: MP4-ish boxes and JPEG-ish segments, valid-looking then corrupted (the E2 probe and
// the thumbnail check parse them).

function mp4Box(type, payload = Buffer.alloc(0)) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length, 0);
  head.write(type.padEnd(4).slice(0, 4), 4, "latin1");
  return Buffer.concat([head, payload]);
}

function fullBox(type, version, rest) {
  return mp4Box(type, Buffer.concat([Buffer.from([version, 0, 0, 0]), rest]));
}

function mp4ish(rng) {
  const width = rng.pick([160, 320, 1920, 1921, 0, 65535, 1080]);
  const height = rng.pick([90, 180, 1080, 1081, 0, 65535, 1920]);
  const u32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b;
  };
  const avc1 = Buffer.alloc(78);
  avc1.writeUInt16BE(1, 6);
  avc1.writeUInt16BE(width & 0xffff, 24);
  avc1.writeUInt16BE(height & 0xffff, 26);
  const sampleEntry = mp4Box(
    rng.pick(["avc1", "avc1", "hvc1", "mp4v"]),
    Buffer.concat([avc1, mp4Box("avcC", rng.bytes(rng.int(0, 40)))]),
  );
  const stsd = fullBox(
    "stsd",
    0,
    Buffer.concat([u32(rng.pick([1, 1, 0, 0xffffffff])), sampleEntry]),
  );
  const stbl = mp4Box(
    "stbl",
    Buffer.concat([
      stsd,
      fullBox("stts", 0, u32(0)),
      fullBox("stsz", 0, Buffer.concat([u32(0), u32(0)])),
    ]),
  );
  const hdlr = fullBox(
    "hdlr",
    0,
    Buffer.concat([
      u32(0),
      Buffer.from(rng.pick(["vide", "soun", "text"])),
      Buffer.alloc(12),
      Buffer.from("x\0"),
    ]),
  );
  const mdhd = fullBox(
    "mdhd",
    0,
    Buffer.concat([
      u32(0),
      u32(0),
      u32(rng.pick([1000, 0, 0xffffffff])),
      u32(rng.pick([2000, 0, 0xffffffff])),
      Buffer.alloc(4),
    ]),
  );
  const trak = mp4Box(
    "trak",
    Buffer.concat([
      fullBox("tkhd", 0, Buffer.alloc(80)),
      mp4Box("mdia", Buffer.concat([mdhd, hdlr, mp4Box("minf", stbl)])),
    ]),
  );
  const mvhd = fullBox(
    "mvhd",
    0,
    Buffer.concat([
      u32(0),
      u32(0),
      u32(rng.pick([1000, 0])),
      u32(rng.pick([2000, 0, 0xffffffff])),
      Buffer.alloc(80),
    ]),
  );
  let moov = mp4Box("moov", Buffer.concat([mvhd, trak]));
  const ftyp = mp4Box("ftyp", Buffer.from("isom\0\0\0\x01isomavc1", "latin1"));
  const mdat = mp4Box("mdat", rng.bytes(rng.pick([16, 1000, 70_000])));
  const corruption = rng.weighted([
    [3, "none"],
    [2, "size0"],
    [2, "size1-huge"],
    [2, "size-small"],
    [2, "size-past-end"],
    [1, "truncate"],
    [1, "deep"],
    [1, "random"],
    [1, "moov-last"],
    [1, "empty"],
  ]);
  let parts = [ftyp, moov, mdat];
  switch (corruption) {
    case "size0":
      moov.writeUInt32BE(0, 0);
      break;
    case "size1-huge": {
      // 64-bit largesize: 2^63 - 1
      const big = Buffer.alloc(16);
      big.writeUInt32BE(1, 0);
      big.write("moov", 4, "latin1");
      big.writeBigUInt64BE(0x7fffffffffffffffn, 8);
      parts = [ftyp, big, moov.subarray(8)];
      break;
    }
    case "size-small":
      moov.writeUInt32BE(rng.pick([1, 4, 7]), 0);
      break;
    case "size-past-end":
      moov.writeUInt32BE(0xfffffff0, 0);
      break;
    case "truncate":
      parts = [Buffer.concat(parts).subarray(0, rng.int(1, ftyp.length + moov.length))];
      break;
    case "deep": {
      let inner = mp4Box("free");
      for (let i = 0; i < rng.pick([100, 1000]); i++)
        inner = mp4Box(rng.pick(["moov", "trak", "mdia", "minf", "stbl"]), inner);
      moov = inner;
      parts = [ftyp, moov];
      break;
    }
    case "random":
      parts = [rng.bytes(rng.int(1, 5000))];
      break;
    case "moov-last":
      parts = [ftyp, mdat, moov];
      break;
    case "empty":
      parts = [Buffer.alloc(0)];
      break;
  }
  return { bytes: Buffer.concat(parts), kind: `mp4:${corruption}` };
}

function jpegish(rng) {
  const [width, height] = rng.chance(0.6)
    ? [1920, 1080]
    : [rng.pick([1920, 1280, 0, 65535, 1921, 1080]), rng.pick([1080, 720, 0, 65535, 1079, 1920])];
  const seg = (marker, payload) => {
    const b = Buffer.alloc(4);
    b[0] = 0xff;
    b[1] = marker;
    b.writeUInt16BE((payload.length + 2) & 0xffff, 2);
    return Buffer.concat([b, payload]);
  };
  const sof = Buffer.alloc(15);
  sof[0] = 8;
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  sof[5] = 3;
  const app0 = Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0", "latin1");
  const corruption = rng.weighted([
    [3, "none"],
    [1, "len0"],
    [1, "len1"],
    [1, "truncate"],
    [1, "no-sof"],
    [1, "random"],
    [1, "huge-app"],
    [1, "many-markers"],
  ]);
  let parts = [
    Buffer.from([0xff, 0xd8]),
    seg(0xe0, app0),
    seg(0xc0, sof),
    seg(0xda, Buffer.alloc(10)),
    rng.bytes(200),
    Buffer.from([0xff, 0xd9]),
  ];
  switch (corruption) {
    case "len0":
      parts[2] = Buffer.from([0xff, 0xc0, 0, 0]);
      break;
    case "len1":
      parts[1] = Buffer.from([0xff, 0xe0, 0, 1]);
      break;
    case "truncate":
      parts = [Buffer.concat(parts).subarray(0, rng.int(1, 30))];
      break;
    case "no-sof":
      parts.splice(2, 1);
      break;
    case "random":
      parts = [rng.bytes(rng.int(0, 3000))];
      break;
    case "huge-app":
      parts[1] = Buffer.concat([Buffer.from([0xff, 0xe1, 0xff, 0xff]), rng.bytes(100)]);
      break;
    case "many-markers":
      parts.splice(1, 0, Buffer.alloc(20_000, 0xff));
      break;
  }
  return { bytes: Buffer.concat(parts), kind: `jpeg:${corruption}` };
}

// ---------------------------------------------------------------------------------------------
// HTTP over loopback (node:http: raw paths with ../ kept, repeated headers, latin1 header bytes)

const isLoopbackAddress = (address) =>
  /^127\./.test(address) || address === "::1" || address === "::ffff:127.0.0.1";

/** DNS lookup that only ever yields loopback addresses ("localhost" cannot be pointed elsewhere). */
function loopbackLookup(hostname, options, callback) {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err);
    const ok = addresses.filter((a) => isLoopbackAddress(a.address));
    if (!ok.length)
      return callback(
        Object.assign(new Error(`${hostname} does not resolve to a loopback address`), {
          code: "ENOTLOOPBACK",
        }),
      );
    if (options.all) return callback(null, ok);
    callback(null, ok[0].address, ok[0].family);
  });
}

function sendHttp(target, request, { agent, timeoutMs }) {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    let response = null;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...value, ms: Math.round(performance.now() - started) });
    };
    let req;
    const timer = setTimeout(() => {
      finish({
        error: "timeout",
        message: `no complete answer within ${timeoutMs} ms${response ? ` (status ${response.status} received)` : ""}`,
      });
      req?.destroy(new Error("timeout"));
    }, timeoutMs);
    try {
      req = http.request({
        host: target.host,
        port: target.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent: agent === false ? new http.Agent({ keepAlive: false }) : agent,
        lookup: loopbackLookup,
      });
    } catch (err) {
      // Node refused to send it (e.g. a character it does not allow in a path or header).
      finish({ error: "client", message: `${err.code ?? err.name}: ${err.message}` });
      return;
    }
    req.on("response", (res) => {
      response = { status: res.statusCode, headers: res.headers };
      const chunks = [];
      let kept = 0;
      let total = 0;
      res.on("data", (chunk) => {
        total += chunk.length;
        if (kept < MAX_KEEP_BYTES) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      res.on("end", () => {
        let body = Buffer.concat(chunks);
        const encoding = String(res.headers["content-encoding"] ?? "").toLowerCase();
        try {
          if (total === kept && encoding === "gzip") body = zlib.gunzipSync(body);
          else if (total === kept && encoding === "deflate") body = zlib.inflateSync(body);
          else if (total === kept && encoding === "br") body = zlib.brotliDecompressSync(body);
        } catch {
          // keep the raw bytes
        }
        finish({
          status: res.statusCode,
          headers: res.headers,
          body,
          bodyBytes: total,
          truncated: total > kept,
        });
      });
      res.on("error", (err) =>
        finish({
          error: "connection",
          message: `answer aborted after status ${res.statusCode}: ${err.code ?? ""} ${err.message}`,
        }),
      );
      res.on("aborted", () =>
        finish({ error: "connection", message: `answer aborted after status ${res.statusCode}` }),
      );
    });
    req.on("error", (err) => {
      if (response) return; // the answer came; a late EPIPE/ECONNRESET on our upload is not a finding
      if (req.reusedSocket && err.code === "ECONNRESET" && !request.retried) {
        // The server closed an idle keep-alive connection as we reused it: send again, once, on a new one.
        settled = true;
        clearTimeout(timer);
        sendHttp(target, { ...request, retried: true }, { agent: false, timeoutMs }).then((r) =>
          resolve({ ...r, retriedAfterReset: true }),
        );
        return;
      }
      finish({ error: "connection", message: `${err.code ?? err.name}: ${err.message}` });
    });
    if (request.body && request.body.length) {
      if (request.chunked) {
        req.write(request.body);
        req.end();
      } else {
        req.end(request.body);
      }
    } else {
      req.end();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The OpenAPI document

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

function resolver(doc) {
  const resolve = (schema, seen = 0) => {
    if (!schema || typeof schema !== "object") return schema ?? {};
    if (schema.$ref && seen < 20) {
      const target = schema.$ref
        .replace(/^#\//, "")
        .split("/")
        .reduce((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
      return resolve(
        { ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")) },
        seen + 1,
      );
    }
    return schema;
  };
  return resolve;
}

function authKind(security) {
  const schemes = new Set((security ?? []).flatMap((req) => Object.keys(req)));
  if (!schemes.size) return "public";
  if (schemes.has("adminAuth")) return "admin";
  if (schemes.has("apiKeyAuth") || schemes.has("apiSecretAuth") || schemes.has("bearerAuth"))
    return "write";
  if (schemes.has("organizationKey")) return "orgkey";
  if (schemes.has("syncCodeQuery")) return "events";
  return "sync";
}

export function operationsOf(doc) {
  const resolve = resolver(doc);
  const operations = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => {
        const param = resolve(p);
        return { ...param, schema: resolve(param.schema) };
      });
      const content = op.requestBody ? (resolve(op.requestBody).content ?? {}) : {};
      const bodyTypes = Object.keys(content);
      const bodySchema = bodyTypes.length ? resolve(content[bodyTypes[0]].schema) : null;
      const security = op.security ?? doc.security ?? [];
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params,
        bodySchema,
        bodyTypes,
        bodyRequired: Boolean(op.requestBody && resolve(op.requestBody).required),
        auth: authKind(security),
        security,
        resolve,
      });
    }
  }
  return operations;
}

/** Content endpoints answer {message}; every other {status: "KO", error} (docs/api.md). */
export function errorStyleOf(pathname) {
  return /^\/v2\/(content|uploads)(\/|$)/.test(pathname) ? "message" : "ko";
}

// ---------------------------------------------------------------------------------------------
// Values

const STATS_FIELDS = [
  "thumbnail_view",
  "video_impression",
  "video_played",
  "played_1s",
  "played_3s",
  "played_15s",
  "played_30s",
  "played_25percent",
  "played_50percent",
  "played_75percent",
  "video_ended",
  "video_muted",
  "video_unmuted",
  "video_autoplay",
  "video_pause",
  "video_resume",
  "video_entered_fullscreen",
  "video_exited_fulscreen",
  "video_device_type",
  "video_player_id",
  "ad_impression",
  "ad_clicked",
  "ecommerce_clicked",
  "played_1",
  "played_30",
];
const WORDS = [
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
const DEFAULT_NAMES = {
  tags: ["football", "highlights", "fuzz", "news", "rock,roll", "a|b", "x!y"],
  categories: ["Sport", "News", "fuzz"],
  events: ["Cup Final", "fuzz"],
  customFieldNames: ["season", "show"],
};
const COUNTRIES = ["US", "FR", "DE", "ZZ", "XX", "T1", "", "us", "USA", "A1", "😀", "U", "GB"];

const utcDay = (offsetDays = 0) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** `,` groups of `|` alternatives of names, each value percent-encoded (a literal , | ! inside a name). */
function filterValue(rng, names, { maxGroups = 3, maxAlternatives = 3 } = {}) {
  const groups = rng.int(1, maxGroups);
  return Array.from({ length: groups }, () =>
    Array.from({ length: rng.int(1, maxAlternatives) }, () =>
      encodeURIComponent(rng.chance(0.85) ? rng.pick(names) : rng.string(rng.int(1, 8))),
    ).join("|"),
  ).join(",");
}

const CUSTOM_FIELDS_BROKEN = [
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

function customFieldsValue(rng, ctx) {
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

function customFieldsNasty(rng) {
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

function filterNasty(rng) {
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

function searchValue(rng, minLength = 1) {
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

// ---------------------------------------------------------------------------------------------
// Schema-driven generation

function patternValue(rng, pattern) {
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

function typeOf(schema, rng) {
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
function generate(schema, rng, gen, name, depth = 0) {
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

// ---------------------------------------------------------------------------------------------
// Per-request generation

/** The knowledge a request is built from: this request's org, the run's state, this request's rng. */
function makeGen(run, org, op, rng) {
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
          return rng.pick(STATS_FIELDS.slice(0, 19));
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

function encodeQueryPart(s) {
  // encodeURIComponent, but lone surrogates become the bytes of U+FFFD instead of throwing
  return Buffer.from(String(s), "utf8")
    .toString("latin1")
    .replace(
      /[^A-Za-z0-9\-_.~]/g,
      (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
    );
}

/** Only what a request line cannot carry is escaped: raw odd values keep their %, &, =, ../ ... */
function encodeRaw(s) {
  return Buffer.from(String(s), "utf8")
    .toString("latin1")
    .replace(
      /[^\x21-\x7e]|#/g,
      (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
    );
}

/** A header value Node will send: UTF-8 bytes as latin1, characters it refuses (CTLs, DEL) %-escaped. */
function headerSafe(s) {
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
function credentialHeaders(rng, op, org, run) {
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
const CONTENT_TYPES = [
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

const RANGES = [
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

const AUTH_PARAMS = new Set(["organization_key", "sync"]);

function mutateQuery(rng, req, allowAuth) {
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

function decodeURIComponentSafe(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function mutatePath(rng, req) {
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
function mutateBodyValue(rng, body, run) {
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

const INVALID_JSON = [
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
function mutateBodyText(rng, req, run) {
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

function mutateHeaders(rng, req, op, allowAuth) {
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
function mutateCredentials(rng, req, op, run) {
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

const OTHER_METHODS = [
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
function buildRequest(run, op, org, rng) {
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

function mutateUploadBody(rng, req) {
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

function finalizeBody(req, run) {
  if (req.bodyValue !== undefined && req.bodyText === null) {
    req.bodyText = serializeJson(req.bodyValue, run.ctxRaw);
    if (req.body === null) req.body = Buffer.from(req.bodyText);
  }
}

function expectedPartSize(content, partNumber) {
  const { chunkSize, contentSize } = content;
  if (!chunkSize || !contentSize || !partNumber) return 0;
  const parts = Math.ceil(contentSize / chunkSize);
  if (partNumber < parts) return chunkSize;
  if (partNumber === parts) return contentSize - chunkSize * (parts - 1);
  return 0;
}

function pickSignedUrl(rng, run, path) {
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

function fixups(rng, req, op) {
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

function bodyFixups(rng, op, value, org, run, req) {
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

// ---------------------------------------------------------------------------------------------
// Safety guard: the organizations, content and feeds the fuzzer did not create are never deleted,
// patched or rotated, whatever the mutations did to the request.

function looseDecode(s) {
  let out = String(s);
  for (let i = 0; i < 3; i++)
    out = out.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  return out.toLowerCase();
}

function guard(run, req, path, pathname) {
  const method = req.method.toUpperCase();
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return true;
  // republishing files changes no data; events name content keys and change nothing of them
  if ((pathname === "/admin/feeds/rebuild" || pathname === "/v2/events") && method === "POST")
    return true;
  const { state } = run;
  // Whatever the route (a mutated path may still reach one): no destructive request names a
  // protected organization as a path segment, nor a protected content key or feed id anywhere.
  const text =
    looseDecode(path) +
    " " +
    (req.body && req.body.length < 4 * 1024 * 1024 ? looseDecode(req.body.toString("latin1")) : "");
  const segments = looseDecode(pathname)
    .split(/[/\\]/)
    .map((s) => s.replace(/[^a-z0-9_-]/g, ""));
  for (const key of state.protectedOrgKeys) if (segments.includes(key.toLowerCase())) return false;
  for (const key of state.protectedContentKeys) if (text.includes(key.toLowerCase())) return false;
  for (const id of state.protectedFeedIds)
    if (segments.includes(id.toLowerCase()) || text.includes(id.toLowerCase())) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Serializing, checking, reporting

function serialize(run, req) {
  let path = req.op.path;
  for (const p of req.pathParams) path = path.replace(`{${p.name}}`, p.value);
  if (req.pathSuffix) path += req.pathSuffix;
  let query = req.query.map(([k, v]) => `${k}=${v}`).join("&");
  if (req.rawQueryPrefix) query = req.rawQueryPrefix + query;
  if (req.rawQuerySuffix) query += req.rawQuerySuffix;
  const full = query ? `${path}?${query}` : path;
  const headers = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
  if (req.body && (req.body.length || req.forceContentLength)) {
    if (req.contentType !== null && req.contentType !== undefined)
      headers["Content-Type"] = req.contentType;
    // Node frames a body as chunked by itself only for POST/PUT/PATCH; for GET, DELETE, ... it
    // would send the bytes unframed (the server then reads them as the next request): say it.
    if (!req.chunked) headers["Content-Length"] = String(req.body.length);
    else headers["Transfer-Encoding"] = "chunked";
  } else if (req.forceContentLength) {
    headers["Content-Length"] = "0";
    if (req.contentType) headers["Content-Type"] = req.contentType;
  }
  const sent = {
    method: req.method,
    path: full,
    headers,
    body: req.body,
    chunked: Boolean(req.chunked && req.body?.length),
  };
  // A body the server may leave unread (on GET/HEAD/OPTIONS or an unknown method, or chunked)
  // would be parsed as the next request of a kept-alive connection (wrangler dev does): such
  // requests go on a connection of their own, closed after the answer.
  if (
    sent.body?.length &&
    (sent.chunked || !["POST", "PUT", "PATCH", "DELETE"].includes(sent.method))
  ) {
    sent.headers.Connection = "close";
    sent.isolated = true;
  }
  return sent;
}

function excerptText(buf, max = EXCERPT) {
  if (!buf || !buf.length) return "";
  const text = buf.toString("utf8", 0, Math.min(buf.length, max * 4));
  const printable = text.replace(
    /[\u0000-\u0008\u000a-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  const binary = (text.match(/\uFFFD/g) ?? []).length > 8;
  if (binary) return `<${buf.length} bytes, binary: ${buf.subarray(0, 32).toString("hex")}...>`;
  return printable.length > max ? `${printable.slice(0, max)}... (${buf.length} bytes)` : printable;
}

/** bash ANSI-C quoting of a latin1 (byte) string. */
function shq(s) {
  if (/^[\x20-\x7e]*$/.test(s) && !s.includes("'")) return `'${s}'`;
  return (
    "$'" +
    [...s]
      .map((c) => {
        const code = c.charCodeAt(0);
        if (c === "'" || c === "\\") return "\\" + c;
        if (code < 0x20 || code >= 0x7f) return `\\x${code.toString(16).padStart(2, "0")}`;
        return c;
      })
      .join("") +
    "'"
  );
}

/**
 * shq, with long runs of a repeated unit (100 KB of "a", 500 x "%7C") written as a node
 * expression, so the curl line stays short: 'pre'"$(node -e 'process.stdout.write("a".repeat(100000))')"'post'.
 */
function shqCompact(s) {
  if (s.length < 400) return shq(s);
  const m = /([\s\S]{1,8}?)\1{49,}/.exec(s);
  if (!m) return shq(s);
  const unit = m[1];
  const count = m[0].length / unit.length;
  const before = s.slice(0, m.index);
  const after = s.slice(m.index + m[0].length);
  const unitJs = JSON.stringify(unit).replace(/'/g, "\\x27");
  const expr = `"$(node -e 'process.stdout.write(Buffer.from(${unitJs}.repeat(${count}),"latin1"))')"`;
  return `${before ? shq(before) : ""}${expr}${after ? shqCompact(after) : ""}`;
}

export function curlLine(baseUrl, sent, bodyFile) {
  const parts = ["curl", "-sS", "-i", "-g", "--path-as-is"];
  if (sent.method === "HEAD") parts.push("-I");
  else if (sent.method !== "GET" || sent.body?.length) parts.push("-X", shq(sent.method));
  for (const [name, value] of Object.entries(sent.headers)) {
    if (name === "Content-Length") continue;
    for (const v of Array.isArray(value) ? value : [value])
      parts.push("-H", shqCompact(`${name}: ${v}`));
  }
  if (sent.body?.length) {
    if (!sent.headers["Content-Type"]) parts.push("-H", shq("Content-Type:"));
    if (sent.body.length <= 2048) parts.push("--data-binary", shq(sent.body.toString("latin1")));
    else parts.push("--data-binary", `@${bodyFile ?? "body.bin"}`);
  } else if (sent.headers["Content-Length"] === "0") {
    parts.push("--data-binary", "''");
  }
  const base = baseUrl.replace(/\/$/, "");
  // curl drops a "#..." from a URL; --request-target sends the path and query exactly
  if (sent.path.includes("#")) parts.push("--request-target", shqCompact(sent.path), shq(base));
  else parts.push(shqCompact(base + sent.path));
  return parts.join(" ");
}

function parseJson(buf) {
  try {
    return { ok: true, value: JSON.parse(buf.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

/** Why this error answer breaks the documented shape, or null. */
export function shapeProblem(pathname, status, headers, body) {
  const style = errorStyleOf(pathname);
  const expected = style === "message" ? "{message}" : '{status:"KO", error}';
  const type = String(headers["content-type"] ?? "");
  const parsed = parseJson(body ?? Buffer.alloc(0));
  if (!parsed.ok)
    return `HTTP ${status} body is not JSON (Content-Type ${type || "none"}); expected ${expected}`;
  const v = parsed.value;
  if (!v || typeof v !== "object" || Array.isArray(v))
    return `HTTP ${status} body is not a JSON object; expected ${expected}`;
  if (style === "message") {
    if (typeof v.message !== "string")
      return `HTTP ${status} body has no string "message" (${pathname} is a content endpoint)`;
    if (v.status === "KO")
      return `HTTP ${status} content endpoint answered the {status:"KO"} shape`;
  } else {
    if (v.status !== "KO" || typeof v.error !== "string")
      return `HTTP ${status} body is not {status:"KO", error}`;
  }
  if (!/json/i.test(type))
    return `HTTP ${status} JSON error body with Content-Type ${type || "none"}`;
  return null;
}

/**
 * An answer the local runtime (wrangler/workerd) gave before the worker ran: none of the headers
 * the worker's middleware adds, and one of workerd's own plain-text answers ("ERROR: header too
 * large." 431 for a request head over ~64 KB, "ERROR: Unrecognized request method." 501, 415
 * "Unsupported Media Type" for Accept-Encoding: identity;q=0, 503 "Your worker restarted
 * mid-request" while wrangler dev reloads after a source change). Anything else is the worker's.
 */
function fromRuntime(method, status, headers, body) {
  if (headers["server-timing"] || headers["referrer-policy"] || headers["x-content-type-options"])
    return false;
  const text = body?.length ? body.toString("utf8", 0, 200) : "";
  if (method.toUpperCase() === "HEAD" && !text)
    return (
      [414, 415, 431, 501].includes(status) &&
      /^text\/plain/.test(String(headers["content-type"] ?? ""))
    );
  return (
    /^ERROR: /.test(text) ||
    (status === 415 && text === "Unsupported Media Type") ||
    // wrangler dev reloading the worker after a source change
    (status === 503 && /^Your worker restarted mid-request/.test(text))
  );
}

function statusClass(status) {
  if (status === 429) return "429";
  return `${Math.floor(status / 100)}xx`;
}

// ---------------------------------------------------------------------------------------------
// Setup: the document, the organizations, a sub-organization, a feed and an ecommerce item each.

async function setupRun(run) {
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

function learnListing(run, value, protect) {
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

function newOrg(o, fresh = false) {
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
function harvest(run, req, sent, res) {
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

const currentMinute = () => Math.floor(Date.now() / 60_000);

// ---------------------------------------------------------------------------------------------
// The run

/**
 * @typedef {{ index: number, method: string, path: string, status: number, curl: string, [key: string]: unknown }} FuzzAnswer
 * @typedef {{ seed: string | number, requests: number, elapsedSeconds: number, byClass: Record<string, number>,
 *   byStatus: Record<string, number>, byOperation: Record<string, unknown>, rateLimited: number,
 *   serverErrors: FuzzAnswer[], timeouts: FuzzAnswer[], connectionErrors: FuzzAnswer[],
 *   shapeViolations: FuzzAnswer[], missingNosniff: FuzzAnswer[], [key: string]: unknown }} FuzzResult
 */

/**
 * Fuzzes the service at baseUrl (loopback only) and resolves to the result.
 *
 * @param {object} options
 * @param {string} options.baseUrl            http://127.0.0.1:<port>, http://localhost:<port> or http://[::1]:<port>
 * @param {number} [options.requests]         stop after this many requests (setup requests not counted)
 * @param {number} [options.seconds]          stop sending after this many seconds (in-flight requests finish, each within timeoutMs)
 * @param {number|string} [options.seed]      PRNG seed (random when omitted; the result carries it)
 * @param {object} [options.credentials]      { adminToken, network, organizations: [{organizationKey, syncCode, apiKey, apiSecret, apiToken, mmiKey, plan, contentKeys, feedIds}], protectedOrganizations }
 * @param {(r: object) => void} [options.onResult]  called after every request with
 *   { index, operation, method, path, status, error, ms, mutations, response }
 * @param {number} [options.concurrency]      requests in flight (default 4)
 * @param {number} [options.timeoutMs]        per request (default 30000): a timeout is a failure
 * @param {number} [options.freshOrganizations] enterprise organizations to create through the operator API (default 2)
 * @returns {Promise<FuzzResult>} each listed answer has index, method, path (300 characters at
 *   most), mutations, requestBody and response excerpts, status and a curl line
 */
export async function fuzz(options) {
  const opts = {
    ...DEFAULTS,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  };
  const { baseUrl, onResult } = opts;
  if (!isLoopbackUrl(baseUrl))
    throw new Error(
      `refusing ${baseUrl}: only http://127.0.0.1, http://localhost or http://[::1] are allowed`,
    );
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const base = new URL(baseUrl);
  const target = { host: base.hostname.replace(/^\[|\]$/g, ""), port: Number(base.port || 80) };
  const basePath = base.pathname.replace(/\/$/, "");
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const send = (r) =>
    sendHttp(
      target,
      { ...r, path: basePath + r.path },
      { agent: r.isolated ? false : agent, timeoutMs: opts.timeoutMs },
    );
  const credentials = opts.credentials ?? DEMO_CREDENTIALS;
  const started = Date.now();
  const deadline = started + opts.seconds * 1000;

  const result = {
    seed,
    baseUrl,
    requests: 0,
    setupRequests: 0,
    elapsedSeconds: 0,
    waitedForRateLimitSeconds: 0,
    /** Requests sent again once because a reused keep-alive connection was reset as they went out. */
    retriedAfterReset: 0,
    /** Restarts of the worker by wrangler dev after a chunked request, absorbed by an uncounted probe. */
    absorbedRestarts: 0,
    /** Request numbers given up because ten drafts all touched what the fuzzer must not change. */
    skippedByGuard: 0,
    byClass: {},
    byStatus: {},
    byOperation: {},
    rateLimited: { total: 0, plan: 0, authFailures: 0, other: 0 },
    serverErrors: [],
    timeouts: [],
    connectionErrors: [],
    clientRefusals: [],
    shapeViolations: [],
    missingNosniff: [],
    runtimeAnswers: [],
    setupLog: [],
    organizations: [],
  };

  // The document
  const docRes = await send({ method: "GET", path: "/openapi.json", headers: {} });
  if (docRes.error || docRes.status !== 200)
    throw new Error(
      `GET ${baseUrl}/openapi.json failed: ${docRes.error ?? `HTTP ${docRes.status}`} ${docRes.message ?? ""}`,
    );
  const doc = JSON.parse(docRes.body.toString("utf8"));
  const operations = operationsOf(doc);
  const entitlementEnum =
    doc.components?.schemas?.AdminCreateOrganization?.properties?.entitlements?.items?.enum;
  const eventEnum = doc.components?.schemas?.StatsEvent?.properties?.event?.enum;

  const run = {
    seed,
    options: opts,
    send,
    adminToken: credentials.adminToken,
    network: credentials.network,
    entitlements:
      Array.isArray(entitlementEnum) && entitlementEnum.length ? entitlementEnum : ALL_ENTITLEMENTS,
    orgs: (credentials.organizations ?? []).map((o) => newOrg(o)),
    counters: Array.isArray(eventEnum) && eventEnum.length ? eventEnum : STATS_FIELDS,
    setupRequests: 0,
    state: {
      publishedKeys: new Set(),
      protectedOrgKeys: new Set([
        ...(credentials.protectedOrganizations ?? []),
        ...(credentials.organizations ?? []).map((o) => o.organizationKey),
        "demo",
        "partner",
      ]),
      protectedContentKeys: new Set(),
      protectedFeedIds: new Set(),
      allFeedIds: new Set(),
      scratchOrgs: [],
      etags: [],
      names: {
        tags: new Set(DEFAULT_NAMES.tags),
        categories: new Set(DEFAULT_NAMES.categories),
        events: new Set(DEFAULT_NAMES.events),
        customFieldNames: new Set(DEFAULT_NAMES.customFieldNames),
      },
    },
    authFailures: { minute: -1, used: 0 },
    authFailureBudget() {
      const m = currentMinute();
      if (this.authFailures.minute !== m) this.authFailures = { minute: m, used: 0 };
      return this.authFailures.used < opts.authFailuresPerMinute;
    },
    spendAuthFailure() {
      this.authFailureBudget();
      this.authFailures.used++;
    },
  };
  for (const o of run.orgs) for (const k of o.contentKeys) run.state.protectedContentKeys.add(k);
  for (const o of run.orgs) for (const f of o.feedIds) run.state.protectedFeedIds.add(f);

  result.setupLog = await setupRun(run);
  result.setupRequests = run.setupRequests;
  result.organizations = run.orgs.map((o) => ({
    organizationKey: o.organizationKey,
    plan: o.plan,
    fresh: o.fresh,
    mmiKey: o.mmiKey ?? null,
  }));
  const drawn = (
    run.orgs.length
      ? operations
      : operations.filter((op) => op.auth === "public" || op.auth === "admin")
  ).filter((op) => op.auth !== "admin" || run.adminToken);
  const weights = drawn.map((op) => [opWeight(op), op]);

  const orgFor = (rng, op) => {
    if (op.auth === "public" || op.auth === "admin")
      return rng.chance(0.5) && run.orgs.length ? rng.pick(run.orgs) : null;
    const m = currentMinute();
    const counted = op.auth !== "events";
    const available = run.orgs.filter((o) => {
      if (o.minute !== m) {
        o.minute = m;
        o.used = 0;
      }
      return !counted || o.used < Math.floor(o.limit * opts.rateLimitShare);
    });
    if (!available.length) return undefined;
    // the plan with the larger limit takes proportionally more traffic
    const org = rng.weighted(available.map((o) => [o.limit, o]));
    if (counted) org.used++;
    return org;
  };

  let dispatched = 0;
  // Chunked bodies the worker answers early (413, 411, ...) make wrangler dev restart the
  // worker, and the next request through it then fails ("Your worker restarted mid-request",
  // "Network connection lost"; a GET hangs): a local-runtime quirk, seen with a bare worker too.
  // Such requests are sent alone, followed by an uncounted POST /openapi.json (a 404 normally)
  // that absorbs the restart, so no other request's answer is blamed for it.
  let inFlight = 0;
  let exclusive = null;
  const sendCounted = async (sent) => {
    const heavy = sent.chunked;
    while (exclusive) await exclusive;
    if (!heavy) {
      inFlight++;
      try {
        return await send(sent);
      } finally {
        inFlight--;
      }
    }
    let release;
    exclusive = new Promise((r) => (release = r));
    try {
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
      const res = await send(sent);
      // the restart may come a moment after the answer (later on a busy machine): probe a few
      // times over about three seconds; a restart shows as wrangler's 503 or as miniflare's entry
      // worker failing to replay the request it held
      for (const pause of [0, 100, 300, 600, 900, 1200]) {
        if (pause) await new Promise((r) => setTimeout(r, pause));
        const probe = await send({
          method: "POST",
          path: "/openapi.json",
          headers: { "Content-Length": "0" },
        });
        const text = probe.body?.toString() ?? "";
        if (
          (probe.status === 503 && /restarted mid-request/.test(text)) ||
          (probe.status === 500 && /Cannot reconstruct a Request/.test(text))
        ) {
          result.absorbedRestarts++;
          break;
        }
      }
      return res;
    } finally {
      exclusive = null;
      release();
    }
  };
  const worker = async () => {
    for (;;) {
      if (dispatched >= opts.requests || Date.now() >= deadline) return;
      const index = dispatched++;
      let req = null;
      let sent = null;
      let pathname = "/";
      for (let attempt = 0; attempt < 10 && !req; attempt++) {
        const rng = createRng(attempt ? `${seed}:${index}:${attempt}` : `${seed}:${index}`);
        const op = rng.weighted(weights);
        let org = orgFor(rng, op);
        while (org === undefined) {
          // Every organization used its share of this minute: wait for the next one.
          const wait = Math.min(60_000 - (Date.now() % 60_000) + 50, deadline - Date.now());
          if (wait <= 0) {
            dispatched = opts.requests; // the time is up
            return;
          }
          result.waitedForRateLimitSeconds += wait / 1000;
          await new Promise((r) => setTimeout(r, wait));
          org = orgFor(rng, op);
        }
        const candidate = buildRequest(run, op, org, rng);
        const s = serialize(run, candidate);
        let pn;
        try {
          pn = new URL(s.path, "http://x").pathname;
        } catch {
          pn = s.path.split("?")[0];
        }
        if (guard(run, candidate, s.path, pn)) {
          req = candidate;
          sent = s;
          pathname = pn;
        }
      }
      if (!req) {
        result.skippedByGuard++;
        continue;
      }
      const res = await sendCounted(sent);
      result.requests++;
      if (res.retriedAfterReset) result.retriedAfterReset++;
      record(result, run, index, req, sent, pathname, res, baseUrl);
      if (!res.error) harvest(run, req, sent, res);
      onResult?.({
        index,
        operation: req.op.id,
        method: sent.method,
        path: sent.path.slice(0, EXCERPT),
        status: res.status ?? null,
        error: res.error ?? null,
        ms: res.ms,
        mutations: req.mutations,
        response: res.error ? res.message : excerptText(res.body, 200),
      });
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  agent.destroy();
  result.elapsedSeconds = Math.round((Date.now() - started) / 100) / 10;
  result.waitedForRateLimitSeconds = Math.round(result.waitedForRateLimitSeconds);
  // What fails a run: 5xx, timeouts, connection errors, error-shape violations. Missing nosniff is
  // reported beside them (a warning; the CLI's --strict makes it fail too).
  result.findings =
    result.serverErrors.length +
    result.timeouts.length +
    result.connectionErrors.length +
    result.shapeViolations.length;
  result.warnings = result.missingNosniff.length;
  return result;
}

function opWeight(op) {
  const p = op.path;
  if (p === "/v2/videos") return 8;
  if (p === "/v2/analytics/{type}") return 3;
  if (
    [
      "/prod/search_metadata",
      "/prod/get_video_by_cattag",
      "/prod/search_video_list",
      "/search_video_feed",
      "/get_videos",
    ].includes(p)
  )
    return 2.5;
  if (p === "/v2/content" && op.method === "POST") return 3;
  if (p === "/v2/uploads/part") return 3;
  if (p === "/v2/content/complete") return 2;
  if (p.startsWith("/media/")) return 2.5;
  if (p === "/v2/events") return 2.5;
  if (p.startsWith("/admin/")) return 0.6;
  return 1;
}

function record(result, run, index, req, sent, pathname, res, baseUrl) {
  const opKey = `${sent.method} ${req.op.path}`;
  const byOp = (result.byOperation[opKey] ??= { total: 0 });
  byOp.total++;
  const entry = () => ({
    index,
    operation: req.op.id,
    method: sent.method,
    path:
      sent.path.length > EXCERPT
        ? `${sent.path.slice(0, EXCERPT)}... (${sent.path.length} chars)`
        : sent.path,
    mutations: req.mutations,
    requestBody: excerptText(sent.body),
    requestBytes: sent.body?.length ?? 0,
    status: res.status ?? null,
    response: excerptText(res.body),
    ms: res.ms,
    curl: curlLine(baseUrl, sent, `fuzz-body-${index}.bin`),
    // full body for the bodies too large for the curl line (the CLI writes them with --out)
    bodyBase64: sent.body && sent.body.length > 2048 ? sent.body.toString("base64") : undefined,
  });
  const headBytes =
    sent.path.length +
    Object.entries(sent.headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
  const unknownMethod = !/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE|PROPFIND)$/.test(
    sent.method,
  );
  if (res.error === "connection" && (headBytes > 60_000 || (unknownMethod && sent.body?.length))) {
    // wrangler dev refuses a request head over ~64 KB (431) or a method it does not know (501)
    // and closes the connection; with a body still being sent that is a reset before the answer
    // can be read: the runtime's doing, not the worker's.
    result.byClass["runtime reset"] = (result.byClass["runtime reset"] ?? 0) + 1;
    byOp["runtime reset"] = (byOp["runtime reset"] ?? 0) + 1;
    const why =
      headBytes > 60_000
        ? `a request head of ${headBytes} bytes (over the runtime's ~64 KB limit)`
        : `the method ${sent.method}, which the runtime refuses (501)`;
    result.runtimeAnswers.push({
      ...entry(),
      error: res.message,
      note: `connection reset on ${why}`,
    });
    return;
  }
  if (res.error) {
    const cls =
      res.error === "timeout"
        ? "timeout"
        : res.error === "client"
          ? "not sent"
          : "connection error";
    result.byClass[cls] = (result.byClass[cls] ?? 0) + 1;
    byOp[cls] = (byOp[cls] ?? 0) + 1;
    const e = { ...entry(), error: res.message };
    if (res.error === "timeout") result.timeouts.push(e);
    else if (res.error === "client") result.clientRefusals.push(e);
    else result.connectionErrors.push(e);
    return;
  }
  const cls = statusClass(res.status);
  result.byClass[cls] = (result.byClass[cls] ?? 0) + 1;
  result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
  byOp[cls] = (byOp[cls] ?? 0) + 1;
  const runtime = fromRuntime(sent.method, res.status, res.headers, res.body);
  if (runtime) {
    result.runtimeAnswers.push({
      ...entry(),
      note: "answered by the local runtime (wrangler/workerd), not the worker: none of Server-Timing, Referrer-Policy, X-Content-Type-Options",
    });
  }
  // A failed authentication the fuzzer did not mean: it counts against the per-address throttle too.
  if (res.status === 401 && !req.authRisk) run.spendAuthFailure();
  if (res.status === 429) {
    result.rateLimited.total++;
    const text = res.body?.toString("utf8") ?? "";
    if (/rate limit exceeded/i.test(text)) result.rateLimited.plan++;
    else if (/failed authentications/i.test(text)) {
      result.rateLimited.authFailures++;
      // the service's count for this address is past the limit: no more deliberate failures this minute
      run.authFailureBudget();
      run.authFailures.used = Math.max(run.authFailures.used, run.options.authFailuresPerMinute);
    } else result.rateLimited.other++;
  }
  if (runtime) return;
  if (res.status >= 500) {
    const e = entry();
    // Still a finding, but say where it came from: wrangler dev's wrapper renders exceptions that
    // escaped the worker, and also its own failures while it reloads the worker after a change.
    if (
      /miniflare\/dist\/src\/workers\/core\/entry\.worker\.js/.test(
        res.body?.toString("utf8", 0, 4000) ?? "",
      )
    ) {
      e.note =
        "rendered by miniflare's entry worker (an exception outside the worker's error handler, or wrangler dev reloading the worker): re-run the curl line";
    }
    result.serverErrors.push(e);
  }
  if (String(res.headers["x-content-type-options"] ?? "").toLowerCase() !== "nosniff")
    result.missingNosniff.push(entry());
  if (res.status >= 400 && sent.method.toUpperCase() !== "HEAD") {
    const problem = shapeProblem(
      pathname,
      res.status,
      res.headers,
      res.truncated ? null : res.body,
    );
    if (problem) result.shapeViolations.push({ ...entry(), problem });
  }
}

// ---------------------------------------------------------------------------------------------
// Summary text (the CLI prints it; tests print it on failure)

export function formatSummary(result, { maxListed = 50 } = {}) {
  const lines = [];
  const pad = (s, n) => String(s).padEnd(n);
  const lpad = (s, n) => String(s).padStart(n);
  lines.push(
    `fuzz ${result.baseUrl}: seed ${result.seed}, ${result.requests} requests in ${result.elapsedSeconds} s (+${result.setupRequests} setup requests)` +
      (result.waitedForRateLimitSeconds
        ? `, ${result.waitedForRateLimitSeconds} s waiting for the rate-limit minute`
        : ""),
  );
  lines.push(
    `organizations: ${result.organizations.map((o) => `${o.organizationKey}${o.fresh ? " (created)" : ""}`).join(", ") || "none"}`,
  );
  for (const l of result.setupLog) lines.push(`setup: ${l}`);
  lines.push("");
  const classes = [
    "2xx",
    "3xx",
    "4xx",
    "429",
    "5xx",
    "timeout",
    "connection error",
    "not sent",
    ...(result.byClass["runtime reset"] ? ["runtime reset"] : []),
  ];
  lines.push(classes.map((c) => `${c}: ${result.byClass[c] ?? 0}`).join("   "));
  lines.push(
    `statuses: ${Object.entries(result.byStatus)
      .map(([s, n]) => `${s}×${n}`)
      .join(" ")}`,
  );
  if (result.retriedAfterReset)
    lines.push(
      `sent again on a new connection after a keep-alive reset: ${result.retriedAfterReset}`,
    );
  if (result.absorbedRestarts)
    lines.push(
      `worker restarts by wrangler dev after chunked requests, absorbed by an uncounted probe: ${result.absorbedRestarts}`,
    );
  lines.push(
    `429: ${result.rateLimited.total} (plan limit ${result.rateLimited.plan}, failed-authentication throttle ${result.rateLimited.authFailures}, other ${result.rateLimited.other})`,
  );
  lines.push("");
  const cols = ["2xx", "3xx", "4xx", "429", "5xx", "timeout", "connection error"];
  lines.push(
    `${pad("operation", 58)}${lpad("total", 7)}${cols.map((c) => lpad(c === "connection error" ? "conn" : c, 8)).join("")}`,
  );
  for (const [op, counts] of Object.entries(result.byOperation).sort(
    (a, b) => b[1].total - a[1].total,
  )) {
    lines.push(
      `${pad(op.slice(0, 57), 58)}${lpad(counts.total, 7)}${cols.map((c) => lpad(counts[c] ?? "", 8)).join("")}`,
    );
  }
  const list = (title, items, fmt) => {
    lines.push("");
    lines.push(`${title}: ${items.length}`);
    for (const e of items.slice(0, maxListed)) lines.push(...fmt(e));
    if (items.length > maxListed)
      lines.push(`  ... ${items.length - maxListed} more (all of them with --out)`);
  };
  const cap = (text, n = 1500) =>
    text.length > n ? `${text.slice(0, n)}... (${text.length} chars; whole in --out)` : text;
  const common = (e) => [
    `  #${e.index} ${e.method} ${e.path}`,
    `     mutations: ${e.mutations.join("; ") || "none (a valid request)"}`,
    ...(e.requestBody
      ? [`     body (${e.requestBytes} bytes): ${e.requestBody.slice(0, 200)}`]
      : []),
  ];
  if (result.serverErrors.length > 1) {
    const groups = new Map();
    for (const e of result.serverErrors) {
      const key = `${e.status} ${e.response.replace(/\d+/g, "N").slice(0, 100)}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    lines.push("");
    lines.push("5xx by answer:");
    for (const [key, n] of [...groups].sort((a, b) => b[1] - a[1]))
      lines.push(`  ${String(n).padStart(5)}  ${key}`);
  }
  list("5xx", result.serverErrors, (e) => [
    ...common(e),
    `     -> ${e.status} ${e.response}`,
    ...(e.note ? [`     note: ${e.note}`] : []),
    `     repro: ${cap(e.curl)}`,
  ]);
  list("timeouts", result.timeouts, (e) => [
    ...common(e),
    `     -> ${e.error}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  list("connection errors", result.connectionErrors, (e) => [
    ...common(e),
    `     -> ${e.error}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  list("error-shape violations", result.shapeViolations, (e) => [
    ...common(e),
    `     -> ${e.problem}: ${e.response}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  list("answers without X-Content-Type-Options: nosniff", result.missingNosniff, (e) => [
    ...common(e),
    `     -> ${e.status}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  if (result.runtimeAnswers.length) {
    const byStatus = {};
    for (const e of result.runtimeAnswers)
      byStatus[e.status ?? "reset"] = (byStatus[e.status ?? "reset"] ?? 0) + 1;
    lines.push("");
    lines.push(
      `answered by the local runtime, not the worker (not counted as findings): ${Object.entries(
        byStatus,
      )
        .map(([s, n]) => `${s}×${n}`)
        .join(" ")}`,
    );
    const e = result.runtimeAnswers[0];
    lines.push(
      `  e.g. #${e.index} ${e.method} ${e.path.slice(0, 120)} -> ${e.status} ${e.response.slice(0, 80)}`,
    );
  }
  if (result.clientRefusals.length) {
    lines.push("");
    lines.push(
      `not sent (Node refused the request): ${result.clientRefusals.length}, e.g. ${result.clientRefusals[0].error}`,
    );
  }
  lines.push("");
  lines.push(
    (result.findings
      ? `FINDINGS: ${result.findings} (5xx ${result.serverErrors.length}, timeouts ${result.timeouts.length}, connection errors ${result.connectionErrors.length}, shape violations ${result.shapeViolations.length})`
      : "no findings (5xx, timeouts, connection errors, shape violations)") +
      (result.missingNosniff.length
        ? `; warnings: ${result.missingNosniff.length} answers without X-Content-Type-Options: nosniff`
        : ""),
  );
  return lines.join("\n");
}
