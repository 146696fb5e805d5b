// Publishing a file through the documented flow (E1, PUT each part, E2) and waiting for its
// ladder, for the benches that need a video with rungs (a server that reaches a transcoder).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The demo organization's credentials (scripts/seed.mjs), present in every prepared state. */
export const DEMO_CREDENTIALS = {
  syncCode: "demo-sync",
  apiKey: "demo-key",
  apiSecret: "demo-secret",
};

/** An API of the server at `url` with `credentials` (write): `api(method, path, body?)` → JSON. */
export function apiOf(url, credentials) {
  const headers = {
    "X-Service-Sync-Code": credentials.syncCode,
    "X-Service-Api-Key": credentials.apiKey,
    "X-Service-Api-Secret": credentials.apiSecret,
    "Content-Type": "application/json",
  };
  return async (method, path, payload) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      body: payload && JSON.stringify(payload),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

/**
 * A test picture with noise (x264 keeps near `bitrate`), a 440 Hz tone (AAC 128 kbit/s, 48 kHz),
 * a keyframe every 2 s, moov first: what a publisher uploads, made by ffmpeg at `path`.
 */
export async function makeSource(path, { width, height, seconds, bitrate }) {
  await run(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", `testsrc2=size=${width}x${height}:rate=30,noise=alls=12:allf=t`],
      ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"],
      ...["-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
      ...["-b:v", bitrate, "-maxrate", bitrate, "-bufsize", bitrate, "-g", "60"],
      ...["-keyint_min", "60", "-sc_threshold", "0", "-c:a", "aac", "-b:a", "128k"],
      ...["-movflags", "+faststart", path],
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
}

/**
 * Publishes the file at `path` with `ladder` (the organization's rungs: `null` the default) and
 * waits (at most 15 minutes) until every rung is ready; the organization's ladder is put back
 * afterwards. Resolves with the content key, its stream's base URL (…/hls/{key}/{version}/),
 * the rungs' states and the seconds from E2 to a complete ladder.
 */
export async function publishWithLadder(url, credentials, path, ladder, title) {
  const api = apiOf(url, credentials);
  const before = await api("GET", "/v2/renditions/ladder");
  try {
    await api("PUT", "/v2/renditions/ladder", { rungs: ladder });
    const contentKey = await publishFile(url, readFileSync(path), title, credentials);
    const started = Date.now();
    let states = [];
    while (Date.now() - started < 900_000) {
      states = (await api("GET", `/v2/content/renditions?contentKey=${contentKey}`)).renditions;
      if (states.length > 0 && states.every((r) => r.status !== "pending")) break;
      // E2 plans the rungs at once where a transcoder is; none after a minute: there is none.
      if (states.length === 0 && Date.now() - started > 60_000)
        throw new Error(
          "no rungs planned a minute after E2: the server reaches no transcoder (TRANSCODER_URL)",
        );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    if (!states.length || states.some((r) => r.status !== "ready"))
      throw new Error(`the ladder is not ready: ${JSON.stringify(states)}`);
    const listed = await fetch(`${url}/v2/videos?contentKey=${contentKey}`, {
      headers: { "X-Service-Sync-Code": credentials.syncCode },
    });
    const urlHLS = (await listed.json()).data[0].urlHLS;
    return {
      contentKey,
      stream: urlHLS.replace(/master\.m3u8$/, ""),
      states,
      ladderSeconds: (Date.now() - started) / 1000,
    };
  } finally {
    await api("PUT", "/v2/renditions/ladder", { rungs: before.default ? null : before.rungs });
  }
}

/** `method path` with the demo organization's write credentials. */
export const demoApi = (url) => apiOf(url, DEMO_CREDENTIALS);

/**
 * Publishes `file` (its bytes) through E1, a PUT of each part to its signed URL and E2; resolves
 * with the content key once E2 has answered.
 */
export async function publishFile(url, file, title, credentials = DEMO_CREDENTIALS) {
  const api = apiOf(url, credentials);
  const created = await api("POST", "/v2/content/", { contentSize: file.length, title });
  const { signedUrls, chunkSize, uploadId, key } = created.contentUploadData;
  const parts = [];
  for (const [i, signed] of signedUrls.entries()) {
    const res = await fetch(signed, {
      method: "PUT",
      body: file.subarray(i * chunkSize, (i + 1) * chunkSize),
    });
    if (!res.ok) throw new Error(`part ${i + 1}: ${res.status}`);
    parts.push({ PartNumber: i + 1, ETag: res.headers.get("ETag") });
  }
  await api("POST", "/v2/content/complete", { uploadId, key, parts });
  return created.contentKey;
}
