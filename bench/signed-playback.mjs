// Signed playback (issue 39 §2): requests per second of a segment and of the media playlist,
// edge cache hit and not, for a video without signed playback and one with it (an HS256 token
// on every request: the check before the cache, the playlist's URIs rewritten after it). Needs
// a running worker (`npm run dev`, or --url) and its ADMIN_TOKEN; makes two organizations of
// its own. First, the CPU cost of the check and the rewrite in Node (bench/signed-playback-cost.ts).
// Bounded: --duration seconds per row (default 5), --connections 10.
//
//   node bench/signed-playback.mjs [--url http://127.0.0.1:8787 --admin-token dev-admin-token]

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { rate as measureRate } from "./lib/rate.mjs";
import { markdownTable } from "./lib/report.mjs";
import { withTsModule } from "./lib/ts-module.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    "admin-token": { type: "string", default: "dev-admin-token" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
  },
});
const base = values.url.replace(/\/$/, "");
const mp4 = readFileSync(`${ROOT}test/fixtures/h264-aac-faststart.mp4`);

/** An HS256 playback token (as sdk/client/src/playback.ts mints it; Node 20 runs no .ts). */
async function mint(keyId, secret, contentKey) {
  const part = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${part({ alg: "HS256", typ: "JWT", kid: keyId })}.${part({ sub: contentKey, exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  const hmac = await crypto.subtle.importKey(
    "raw",
    Buffer.from(secret, "base64url"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", hmac, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(signature).toString("base64url")}`;
}

async function ok(what, res) {
  const body = await res.json();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function organization() {
  const organizationKey = `bsp${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
  const { credentials } = await ok(
    "POST /admin/organizations",
    await fetch(`${base}/admin/organizations`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${values["admin-token"]}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ organizationKey, plan: "enterprise", entitlements: [] }),
    }),
  );
  const headers = {
    "X-Service-Sync-Code": credentials.syncCode,
    "X-Service-Api-Key": credentials.apiKey,
    "X-Service-Api-Secret": credentials.apiSecret,
    "Content-Type": "application/json",
  };
  const call = (method, path, body) =>
    fetch(`${base}${path}`, { method, headers, body: body && JSON.stringify(body) }).then((r) =>
      ok(`${method} ${path}`, r),
    );
  const created = await call("POST", "/v2/content/", { contentSize: mp4.byteLength });
  const { signedUrls, uploadId, key } = created.contentUploadData;
  const put = await fetch(signedUrls[0], { method: "PUT", body: mp4 });
  await call("POST", "/v2/content/complete", {
    uploadId,
    key,
    parts: [{ PartNumber: 1, ETag: put.headers.get("ETag") }],
  });
  const { data } = await ok(
    "E6",
    await fetch(`${base}/v2/videos?contentKey=${created.contentKey}`, {
      headers: { "X-Service-Sync-Code": credentials.syncCode },
    }),
  );
  const stream = data[0].urlHLS.replace(/master\.m3u8$/, "").replace(/^https?:\/\/[^/]+/, base);
  return { call, contentKey: created.contentKey, stream };
}

/** bench/lib/rate.mjs with this run's duration and connections. */
const rate = (title, url, headers = {}) => measureRate(title, url, { ...values, headers });

const cost = await withTsModule(`${ROOT}bench/signed-playback-cost.ts`, ({ measure }) => measure());
console.log("\n## CPU per request (Node, the service's own modules)\n");
console.log(
  markdownTable(
    [
      { title: "Step", value: (r) => r.step, align: "left" },
      { title: "µs", value: (r) => r.us.toFixed(1) },
    ],
    cost,
  ),
);

const up = await fetch(`${base}/healthz`).catch(() => null);
if (!up?.ok) {
  console.log(`\n(no worker at ${base}: start \`npm run dev\` to measure requests per second)`);
  process.exit(0);
}
const plain = await organization();
const signed = await organization();
const key = await signed.call("POST", "/v2/playback-keys", { algorithm: "HS256" });
await signed.call("PUT", "/v2/playback-settings", { signedPlayback: true });
const token = await mint(key.keyId, key.secret, signed.contentKey);
const q = `?token=${token}`;
for (const url of [
  `${plain.stream}video.m3u8`,
  `${plain.stream}0.m4s`,
  `${signed.stream}video.m3u8${q}`,
  `${signed.stream}0.m4s${q}`,
])
  await (await fetch(url)).arrayBuffer();

const rows = [];
for (const [name, o, suffix] of [
  ["off", plain, ""],
  ["on", signed, q],
]) {
  rows.push({ name, ...(await rate("segment, edge cache hit", `${o.stream}0.m4s${suffix}`)) });
  rows.push({
    name,
    ...(await rate("segment, packaged each time (Range: bytes=0-)", `${o.stream}0.m4s${suffix}`, {
      Range: "bytes=0-",
    })),
  });
  rows.push({
    name,
    ...(await rate("media playlist, edge cache hit", `${o.stream}video.m3u8${suffix}`)),
  });
}
console.log(
  `\n## Signed playback off and on, ${base} (${values.connections} connections, ${values.duration} s each)\n`,
);
console.log(
  markdownTable(
    [
      { title: "Signed playback", value: (r) => r.name, align: "left" },
      { title: "Request", value: (r) => r.title, align: "left" },
      { title: "req/s", value: (r) => r.rps.toFixed(0) },
      { title: "p50 ms", value: (r) => String(r.p50) },
      { title: "p99 ms", value: (r) => String(r.p99) },
      { title: "non-2xx", value: (r) => String(r.errors) },
    ],
    rows,
  ),
);
