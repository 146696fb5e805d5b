// Where the worker's CPU goes on one kind of request: starts the worker with an inspector, loads
// it with autocannon (each request cache-busted unless --cached), records a CPU profile through
// the inspector and prints the functions by inclusive and own time, mapped through the bundle's
// source map to src/ and node_modules/. docs/benchmarks.md ("Stop 32") shows what it found.
//
//   npm run bench:profile -- --path "/v2/videos/?page=1&pageSize=100" --header "X-Service-Sync-Code: bulk1-sync"
//
// Options: --path P (required), --header "Name: value" (repeatable), --seconds S (5),
// --connections N (10), --cached (no cache-busting parameter), --top N (50), --match REGEX (only
// functions whose name or file matches), --persist-to DIR (.wrangler/state), --port (8797).
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
} from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import WebSocket from "ws";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values: args } = parseArgs({
  options: {
    path: { type: "string" },
    header: { type: "string", multiple: true, default: [] },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    cached: { type: "boolean", default: false },
    top: { type: "string", default: "50" },
    match: { type: "string" },
    "persist-to": { type: "string", default: join(ROOT, ".wrangler", "state") },
    port: { type: "string", default: "8797" },
  },
});
if (!args.path)
  throw new Error('--path is required, e.g. --path "/v2/videos/?page=1&pageSize=100"');
const headers = Object.fromEntries(
  args.header.map((h) => [h.slice(0, h.indexOf(":")).trim(), h.slice(h.indexOf(":") + 1).trim()]),
);

const { unstable_startWorker } = await import("wrangler");
const port = Number(args.port);
const inspectorPort = port + 1000;
const vars = {
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  LOG_REQUESTS: "0",
  RATE_LIMIT_PER_MINUTE: "100000000",
  PUBLIC_READS_PER_IP_PER_MINUTE: "10000000",
};
const startedAt = Date.now();
const worker = await unstable_startWorker({
  config: join(ROOT, "wrangler.toml"),
  bindings: Object.fromEntries(
    Object.entries(vars).map(([name, value]) => [name, { type: "plain_text", value }]),
  ),
  dev: {
    inspector: { port: inspectorPort },
    remote: false,
    server: { hostname: "127.0.0.1", port },
    persist: resolve(args["persist-to"]),
    watch: false,
    liveReload: false,
    logLevel: "warn",
  },
});

try {
  await worker.ready;
  const url = new URL(String(await worker.url)).origin;
  const [target] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const inspector = await connect(target.webSocketDebuggerUrl);

  let n = 0;
  const bust = (path) =>
    args.cached ? path : `${path}${path.includes("?") ? "&" : "?"}_profile=${startedAt}-${++n}`;
  const load = (seconds) =>
    new Promise((done, fail) =>
      autocannon(
        {
          url,
          connections: Number(args.connections),
          duration: seconds,
          requests: [
            {
              method: "GET",
              path: args.path,
              headers,
              setupRequest: (req) => ({ ...req, path: bust(args.path) }),
            },
          ],
        },
        (err, result) => (err ? fail(err) : done(result)),
      ),
    );
  await load(2); // warm: the isolate, D1's pages, the credential cache
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 200 });
  await inspector.send("Profiler.start");
  const result = await load(Number(args.seconds));
  const { profile } = await inspector.send("Profiler.stop");
  inspector.close();
  const bundle = copyBundle(startedAt);
  console.log(
    `${args.path}: ${result.requests.average} req/s, ${result.non2xx} not 2xx, ${profile.samples.length} samples\n`,
  );
  report(profile, bundle);
} finally {
  await worker.dispose();
}

/**
 * A minimal Chrome DevTools Protocol client: send(method, params) answers with the result. (With
 * `ws`: wrangler's inspector proxy refuses Node's own WebSocket, which sends an Origin.)
 */
async function connect(address) {
  const socket = new WebSocket(address);
  await new Promise((open, fail) => {
    socket.onopen = open;
    socket.onerror = fail;
  });
  let id = 0;
  const waiting = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id && waiting.has(message.id)) {
      waiting.get(message.id)(message.result);
      waiting.delete(message.id);
    }
  };
  return {
    send: (method, params = {}) =>
      new Promise((answer) => {
        waiting.set(++id, answer);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** wrangler's bundle of this run (deleted when the worker stops), copied with its source map. */
function copyBundle(since) {
  const tmp = join(ROOT, ".wrangler", "tmp");
  const bundle = readdirSync(tmp)
    .map((name) => join(tmp, name, "index.js"))
    .find(
      (file) =>
        existsSync(file) && existsSync(`${file}.map`) && statSync(file).mtimeMs >= since - 1000,
    );
  if (!bundle) return null;
  const copy = join(mkdtempSync(join(tmpdir(), "evc-profile-")), "index.js");
  copyFileSync(bundle, copy);
  copyFileSync(`${bundle}.map`, `${copy}.map`);
  return copy;
}

/** Inclusive and own time per function (a function counted once per sample however deep it recurses). */
function report(profile, bundle) {
  const map = bundle ? new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, "utf8"))) : null;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parents.set(child, node.id);
  const names = new Map();
  const nameOf = (node) => {
    if (names.has(node.id)) return names.get(node.id);
    const frame = node.callFrame;
    let name = `${frame.functionName || "(anonymous)"} [${frame.url || "native"}]`;
    if (map && frame.url.endsWith("index.js")) {
      const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
      const original = String(entry.originalSource ?? "?");
      const source = original.includes("node_modules/")
        ? original.replace(/.*node_modules\//, "node_modules/")
        : original.replace(/.*\/src\//, "src/");
      name = `${entry.name ?? frame.functionName ?? "(anonymous)"} ${source}:${(entry.originalLine ?? 0) + 1}`;
    }
    names.set(node.id, name);
    return name;
  };
  const inclusive = new Map();
  const own = new Map();
  for (const sample of profile.samples) {
    const seen = new Set();
    for (let id = sample, first = true; id !== undefined; id = parents.get(id), first = false) {
      const name = nameOf(nodes.get(id));
      if (first) own.set(name, (own.get(name) ?? 0) + 1);
      if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
      seen.add(name);
    }
  }
  const total = profile.samples.length;
  const pct = (count) => `${((100 * (count ?? 0)) / total).toFixed(1)} %`.padStart(7);
  const match = args.match ? new RegExp(args.match) : null;
  console.log("inclusive    own  function");
  [...inclusive]
    .filter(([name]) => !match || match.test(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(args.top))
    .forEach(([name, count]) => console.log(`${pct(count)} ${pct(own.get(name))}  ${name}`));
}
