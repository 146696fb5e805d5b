// npm run bench:ingest-flood: what a flood of anonymous live-ingest PUTs costs the worker
// (docs/live.md "Ingest answers"), loopback only, bounded in time. Each run starts a worker of
// its own (bench/lib/load-server.mjs: wrangler's API, a fresh D1 state) and creates one live
// stream; then --clients clients PUT segments that declare --body-mb MiB each, half with a wrong
// key of the right shape to that stream, half to content keys that name no stream, sending as
// fast as the worker reads and stopping once it answers; one encoder meanwhile PUTs 1 MB
// segments with the right key. Sampled every 250 ms: the resident memory of workerd. Printed:
// the answers and their latency (503: wrangler dev's proxy, "Your worker restarted
// mid-request", and reset: a connection reset before the answer was read, both what the local
// HTTP/1.1 stack does when the worker answers while a client still writes), the MiB the clients
// wrote into their sockets (not what the worker read), workerd's memory idle and at its peak,
// the encoder's answers.
//
// Every client is 127.0.0.1 to the worker (wrangler dev sets CF-Connecting-IP), so the per-client
// budget of refused requests counts them as one: runs go with the default budget and with it
// off (AUTH_FAILURES_PER_MINUTE=100000), which shows what the worker does before any throttle.
// --baseline DIR runs another checkout's worker (e.g. a worktree of the commit before) in the
// same conditions, interleaved with this one's.
//
//   npm run bench:ingest-flood -- [--seconds 15] [--clients 10] [--body-mb 16] [--rounds 1]
//                                 [--baseline /path/to/other/checkout]

import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PRODUCTION_BODY_READS } from "../scripts/lib/worker-launcher.mjs";
import { prepareState, startLoadServer } from "./lib/load-server.mjs";
import { canSampleMemory, sampleMemory } from "./lib/process-memory.mjs";
import { markdownTable, writeResults } from "./lib/report.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "15" },
    clients: { type: "string", default: "10" },
    "body-mb": { type: "string", default: "16" },
    rounds: { type: "string", default: "1" },
    baseline: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const bodyBytes = Number(values["body-mb"]) * 1024 * 1024;
const rounds = Number(values.rounds);
if (!(seconds >= 1 && seconds <= 120)) throw new Error("--seconds must be 1 to 120");
if (!(Number.isInteger(clients) && clients >= 1 && clients <= 50))
  throw new Error("--clients must be 1 to 50");
if (!(bodyBytes >= 1024 * 1024 && bodyBytes <= 100 * 1024 * 1024))
  throw new Error("--body-mb must be 1 to 100");
if (!canSampleMemory()) throw new Error("this bench reads /proc (Linux) for the worker's memory");

const CHUNK = Buffer.alloc(64 * 1024, 7);
const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const random = (n) =>
  Array.from({ length: n }, () => letters[Math.floor(Math.random() * letters.length)]).join("");

/**
 * One PUT over a socket of its own declaring `declared` bytes, written as fast as the worker
 * reads them until it answers (then the socket is dropped) or all are sent.
 */
function put(url, declared, body = null) {
  const target = new URL(url);
  const started = performance.now();
  return new Promise((settle) => {
    let sent = 0;
    let answered = false;
    const req = request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "PUT",
      agent: false,
      headers: { "Content-Length": String(declared) },
    });
    const done = (status) => {
      if (answered) return;
      answered = true;
      req.destroy();
      settle({ status, sent, ms: performance.now() - started });
    };
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode));
      res.on("error", () => done(res.statusCode));
    });
    // The connection reset before the answer was read (the worker answered early, the
    // client was still writing): what a local HTTP/1.1 stack does, not an answer of the worker.
    req.on("error", () => done("reset"));
    if (body) {
      sent = body.length;
      req.end(body);
      return;
    }
    const pump = () => {
      while (!answered && sent < declared) {
        const n = Math.min(CHUNK.length, declared - sent);
        sent += n;
        if (!req.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered && sent >= declared) req.end();
    };
    pump();
  });
}

const quantile = (xs, q) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
};
const tally = (answers) =>
  Object.entries(answers.reduce((m, a) => ({ ...m, [a.status]: (m[a.status] ?? 0) + 1 }), {}))
    .map(([status, n]) => `${status}×${n}`)
    .join(" ");

async function run(label, root, budget) {
  const state = mkdtempSync(join(tmpdir(), "evc-ingest-flood-"));
  try {
    await prepareState({ persistTo: state, root });
    const server = await startLoadServer({
      root,
      // As production: an answer given before the body is read goes out at once.
      env: PRODUCTION_BODY_READS,
      persistTo: state,
      vars: {
        LOG_REQUESTS: "0",
        ...(budget === "off" && { AUTH_FAILURES_PER_MINUTE: "100000" }),
      },
    });
    try {
      const created = await fetch(`${server.url}/v2/live`, {
        method: "POST",
        headers: { Authorization: "Bearer demo-token", "Content-Type": "application/json" },
        body: JSON.stringify({ title: "flood target", timeoutSeconds: 600 }),
      });
      if (!created.ok) throw new Error(`POST /v2/live: ${created.status} ${await created.text()}`);
      const stream = await created.json();
      const base = new URL(stream.ingestBaseUrl);
      const memory = sampleMemory(server.pid, 250);
      const idle = memory.now();
      const until = Date.now() + seconds * 1000;
      const flood = [];
      let n = 0;
      const flooder = async (client) => {
        while (Date.now() < until) {
          const i = n++;
          const url =
            client % 2 === 0
              ? `${base.origin}/live-ingest/${stream.contentKey}/lsk_${random(32)}/s${i}.ts`
              : `${base.origin}/live-ingest/${random(8)}/lsk_${random(32)}/s${i}.ts`;
          flood.push(await put(url, bodyBytes));
        }
      };
      const encoded = [];
      const segment = Buffer.alloc(1024 * 1024, 3);
      const encoder = async () => {
        for (let i = 0; Date.now() < until; i++) {
          segment.writeUInt32BE(i, 0);
          encoded.push(await put(`${stream.ingestBaseUrl}/e${i}.ts`, segment.length, segment));
        }
      };
      await Promise.all([...Array.from({ length: clients }, (_, c) => flooder(c)), encoder()]);
      const samples = memory.stop();
      const workerd = (s) =>
        s.processes.filter((p) => p.name === "workerd").reduce((m, p) => m + p.rssMb, 0);
      const sentBytes = flood.reduce((m, a) => m + a.sent, 0);
      return {
        label,
        budget,
        requests: flood.length,
        statuses: tally(flood),
        sentMiB: Math.round(sentBytes / 1024 / 1024),
        answerP50: quantile(
          flood.map((a) => a.ms),
          0.5,
        ),
        answerP95: quantile(
          flood.map((a) => a.ms),
          0.95,
        ),
        idleMb: Math.round(workerd(idle)),
        peakMb: Math.round(Math.max(...samples.map(workerd))),
        encoder: tally(encoded),
        encoderP50: quantile(
          encoded.map((a) => a.ms),
          0.5,
        ),
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

const checkouts = [
  ...(values.baseline ? [{ label: "baseline", root: resolve(values.baseline) }] : []),
  { label: "this checkout", root: undefined },
];
const results = [];
for (let round = 0; round < rounds; round++)
  for (const budget of ["default", "off"])
    for (const { label, root } of checkouts) {
      console.error(`round ${round + 1}: ${label}, budget ${budget} ...`);
      results.push(await run(label, root, budget));
    }

console.log(
  `\n## ${clients} anonymous clients PUT ${bodyBytes / 1024 / 1024} MiB segments for ${seconds} s (+1 encoder)\n`,
);
console.log(
  markdownTable(
    [
      { title: "worker", value: (r) => r.label, align: "left" },
      { title: "refusal budget", value: (r) => r.budget, align: "left" },
      { title: "flood PUTs", value: (r) => r.requests },
      { title: "answers", value: (r) => r.statuses, align: "left" },
      { title: "MiB written", value: (r) => r.sentMiB },
      { title: "answer p50 ms", value: (r) => r.answerP50 },
      { title: "answer p95 ms", value: (r) => r.answerP95 },
      { title: "workerd idle MB", value: (r) => r.idleMb },
      { title: "workerd peak MB", value: (r) => r.peakMb },
      { title: "encoder answers", value: (r) => r.encoder, align: "left" },
      { title: "encoder p50 ms", value: (r) => r.encoderP50 },
    ],
    results,
  ),
);
writeResults("ingest-flood", { seconds, clients, bodyBytes, results });
