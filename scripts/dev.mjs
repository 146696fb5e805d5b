// `npm run dev`: prepare local state (.dev.vars, static assets, D1 migrations, demo data), then
// serve the worker. Extra arguments are wrangler dev's and override the defaults below,
// e.g. `npm run dev -- --port 8790` or `npm run dev -- --persist-to /tmp/state` (the
// migrations and the seed then use that state too).
// `--assets DIR` builds the static assets into DIR and serves them from there instead of
// dist/public; `--env-file FILE` takes the secrets from FILE, and .dev.vars is then neither
// created nor read (wrangler's rule). The e2e test of this script uses both, so it changes no file
// of the checkout that another test's server serves or reads.
//
// The inspector is off by default: the worker runs through wrangler's API
// (scripts/lib/dev-worker.mjs), because wrangler dev's inspector keeps every console message
// in memory until DevTools attaches and cannot take a long load. `npm run dev -- --inspect`
// (or --inspector-port N, or any wrangler dev flag the API path does not know) runs
// `wrangler dev` itself, inspector and DevTools included.
//
// Output: a few lines saying what was prepared, wrangler's banner and "Ready on", then one line
// per request (the worker's own JSON log line; wrangler's duplicate request lines and its
// bindings table are left out). Stopping this script (Ctrl-C, or SIGTERM to its pid) stops
// wrangler and workerd: nothing here imports wrangler (whose signal handlers would exit first),
// the seed runs in a child process, and the signal is forwarded and waited for.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import { connect } from "node:net";
import { constants as osConstants } from "node:os";
import { join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { startTranscoderServer } from "../containers/transcoder/transcoder.mjs";
import { hasFfmpeg, startFrameServer } from "./lib/frame-service.mjs";
import { nudgeProxy } from "./lib/proxy-nudge.mjs";
import { hasPocketsphinx, startSpeechServer } from "./lib/speech-service.mjs";
import { applyMigrations, ROOT, spawnWrangler } from "./lib/wrangler.mjs";

const DEV_WORKER = join(ROOT, "scripts", "lib", "dev-worker.mjs");

// `--test-scheduled` exposes GET /__scheduled so the cron can be triggered by hand.
const DEV_DEFAULTS = [
  ["--local"],
  ["--ip", "127.0.0.1"],
  ["--port", "8787"],
  ["--test-scheduled"],
  ["--show-interactive-dev-session=false"],
];
const say = (line) => console.log(`npm run dev: ${line}`);

async function step(name, fn) {
  try {
    return await fn();
  } catch (err) {
    console.error(`\nnpm run dev: step "${name}" failed: ${err.message}`);
    process.exit(1);
  }
}

function devArgs(extra) {
  // A flag the caller passed (--port 8790 or --port=8790) replaces our default for it.
  const given = new Set(extra.filter((a) => a.startsWith("--")).map((a) => a.split("=")[0]));
  return [
    "dev",
    ...DEV_DEFAULTS.filter(([flag]) => !given.has(flag.split("=")[0])).flat(),
    ...extra,
  ];
}

/** The value of --flag in args (`--flag v` or `--flag=v`; the last one wins, as for wrangler). */
function flagValue(args, flag) {
  let value;
  args.forEach((arg, i) => {
    if (arg === flag && i + 1 < args.length && !args[i + 1].startsWith("-")) value = args[i + 1];
    else if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
  });
  return value;
}

/** http://host:port the dev server answers on (a wildcard --ip is reached through loopback). */
function localOrigin(args) {
  const ip = flagValue(args, "--ip") ?? "127.0.0.1";
  const host = ["0.0.0.0", "*", "::", "[::]"].includes(ip)
    ? "127.0.0.1"
    : ip.includes(":") && !ip.startsWith("[")
      ? `[${ip}]`
      : ip;
  return `http://${host}:${flagValue(args, "--port") ?? "8787"}`;
}

/** Whether something already accepts connections at origin (then it is not our server). */
function listening(origin) {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port) });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000);
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

/**
 * Once the server answers, runs the cron once (GET /__scheduled), so the demo feed files are
 * published without waiting for the next scheduled tick. Waits as long as wrangler starts (slow
 * on a busy machine), every 500 ms; gives up when wrangler exits (signal aborts).
 */
async function runCronOnceReady(origin, signal) {
  while (!signal.aborted) {
    try {
      const res = await fetch(`${origin}/__scheduled`, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
      });
      await res.body?.cancel();
      if (res.ok)
        say(`ran the cron once: demo feeds published, e.g. ${origin}/demofeedall-feed.json`);
      else
        say(
          `GET ${origin}/__scheduled answered HTTP ${res.status}; feeds publish on the next cron run`,
        );
      return;
    } catch {
      // Not listening yet (or still starting): try again shortly.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

// wrangler dev flags the inspector-free path understands (the rest need wrangler dev itself).
const API_FLAGS = new Set([
  "--local",
  "--ip",
  "--port",
  "--test-scheduled",
  "--show-interactive-dev-session",
  "--persist-to",
  "--var",
  "--env-file",
  "--log-level",
  "--assets",
]);

/**
 * The dev-worker configuration for wrangler dev arguments, or `{ unknown }` naming the first
 * flag it does not handle. `--var A:1 B:2` and `--env-file f g` take several values, as in wrangler.
 */
function apiConfig(args) {
  const config = { vars: {}, envFiles: [], watch: true, logLevel: "log" };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s);
    if (!API_FLAGS.has(flag)) return { unknown: args[i] };
    const values = [];
    if (inline !== undefined) values.push(inline);
    else while (i + 1 < args.length && !args[i + 1].startsWith("--")) values.push(args[++i]);
    if (flag === "--ip") config.ip = values.at(-1);
    else if (flag === "--port") config.port = Number(values.at(-1));
    else if (flag === "--persist-to") config.persist = resolve(values.at(-1));
    else if (flag === "--log-level") config.logLevel = values.at(-1);
    else if (flag === "--assets") config.assets = resolve(values.at(-1));
    else if (flag === "--env-file") config.envFiles.push(...values.map((f) => resolve(f)));
    else if (flag === "--var") {
      for (const v of values) {
        const at = v.indexOf(":");
        if (at > 0) config.vars[v.slice(0, at)] = v.slice(at + 1);
      }
    }
  }
  return config;
}

/** Runs a Node script as a child process (its output buffered; shown when it fails). */
function runNode(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, script), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(out.trim())
        : reject(new Error(`${script} exited with code ${code}\n${out}`)),
    );
  });
}

/** Copies wrangler's output, leaving out the bindings table and wrangler's own request lines. */
function filterOutput(stream, target) {
  let inBindings = false;
  createInterface({ input: stream }).on("line", (line) => {
    // The bindings table, and the containers list ([dev] enable_containers = false: none runs here).
    if (
      line.startsWith("Your Worker has access to the following bindings") ||
      line.startsWith("The following containers are available")
    )
      inBindings = true;
    if (inBindings) {
      if (line.trim() === "") inBindings = false;
      return;
    }
    // One line per request: the worker's JSON line stays, wrangler's copy goes.
    if (/^\[wrangler:info\] (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) /.test(line)) return;
    if (line.startsWith("Using secrets defined in")) return;
    // dev-worker.mjs's line for scripts; wrangler's "Ready on" says the same to people.
    if (line.startsWith("READY ")) return;
    target.write(`${line}\n`);
  });
}

const inspectAsked = process.argv.includes("--inspect");
const given = devArgs(process.argv.slice(2).filter((a) => a !== "--inspect"));
const origin = localOrigin(given);
const persistTo = flagValue(given, "--persist-to");
const statePath = persistTo ? ["--persist-to", persistTo] : [];
// URLs in responses and feed files use PUBLIC_BASE_URL (never a request's Host): the dev
// server's own address, unless the caller set it.
const withOrigin = given.some((a) => a.startsWith("PUBLIC_BASE_URL:"))
  ? given
  : [...given, "--var", `PUBLIC_BASE_URL:${origin}`];
// Webhook endpoints on this machine (a receiver on localhost) are accepted in local development only.
const args = given.some((a) => a.startsWith("WEBHOOKS_ALLOW_LOOPBACK:"))
  ? withOrigin
  : [...withOrigin, "--var", "WEBHOOKS_ALLOW_LOOPBACK:true"];
// Local development is offline-friendly: no fetch of Cloudflare's request.cf data.
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

const envFiles = given.includes("--env-file") || given.some((a) => a.startsWith("--env-file="));
// dist/public unless --assets names another directory (wrangler dev's flag, passed on to it).
const assetsDir = resolve(flagValue(given, "--assets") ?? join(ROOT, "dist", "public"));

// Before anything else: workerd cannot bind a taken port (it dies, and the rest would run on),
// and a server already there is most often another `npm run dev`.
await step("check the port", async () => {
  if (await listening(origin))
    throw new Error(
      `something already listens on ${origin} (another npm run dev?): stop it, or choose another port: npm run dev -- --port 8790`,
    );
});

await step("create .dev.vars", () => {
  // With --env-file, wrangler reads those files instead of .dev.vars.
  if (envFiles) return;
  const vars = join(ROOT, ".dev.vars");
  if (!existsSync(vars)) {
    copyFileSync(join(ROOT, ".dev.vars.example"), vars);
    say("created .dev.vars from .dev.vars.example (local secrets; it is gitignored)");
  }
});

await step("build the static assets", async () => {
  // The e2e test serves a copy of the tests' build: building would also rewrite the SDK's and
  // the console's dist folders, which other tests serve.
  if (process.env.EVC_DEV_SKIP_BUILD === "1") {
    if (!existsSync(assetsDir))
      throw new Error(`EVC_DEV_SKIP_BUILD=1, but there are no static assets in ${assetsDir}`);
    return;
  }
  await runNode("scripts/build-assets.mjs", ["--out", assetsDir]);
  say(
    `built the static assets (API reference, player SDK bundle) into ${relative(ROOT, assetsDir) || "."}`,
  );
});

// The catalog (DB) and the statistics (STATS_DB) have a database and migrations each.
await step("apply local D1 migrations", async () => {
  for (const [binding, names] of Object.entries(await applyMigrations({ persistTo }))) {
    say(
      names.length
        ? `applied ${names.length} D1 migration(s): ${names.join(", ")} (${binding})`
        : `D1 migrations (${binding}): up to date`,
    );
  }
});

await step("seed demo data", async () =>
  say(await runNode("scripts/seed.mjs", ["--brief", ...statePath])),
);

// Thumbnails from the video: the local stand-in for Media Transformations runs ffmpeg; the
// rendition ladder: the transcoder program the Container runs in production, as a local process.
const frameArgs = [];
await step("start the frame service and the transcoder", async () => {
  if (!(await hasFfmpeg())) {
    say(
      "no ffmpeg here: videos published without a thumbnail keep the placeholder image, and streams keep one variant, the source (apt-get install ffmpeg for both)",
    );
    return;
  }
  const started = [];
  if (!given.some((a) => a.startsWith("FRAME_SERVICE_URL:"))) {
    const frames = await startFrameServer();
    frameArgs.push("--var", `FRAME_SERVICE_URL:${frames.url}`);
    started.push(
      `thumbnails from the video: ffmpeg frame service on ${frames.url} (the local stand-in for Media Transformations)`,
    );
  }
  if (!given.some((a) => a.startsWith("TRANSCODER_URL:"))) {
    const transcoder = await startTranscoderServer();
    frameArgs.push("--var", `TRANSCODER_URL:${transcoder.url}`);
    started.push(
      `rendition ladder: transcoder on ${transcoder.url} (the Container's program, run here)`,
    );
  }
  if (started.length) say(started.join("; "));
});

// Automatic captions: the offline speech engine (pocketsphinx), the local stand-in for Workers
// AI's Whisper; it needs the transcoder above for the audio.
await step("start the speech engine", async () => {
  if (given.some((a) => a.startsWith("SPEECH_URL:"))) return;
  if (!(await hasFfmpeg()) || !(await hasPocketsphinx())) {
    say(
      "no pocketsphinx here: no automatic captions (apt-get install pocketsphinx pocketsphinx-en-us); uploaded captions work",
    );
    return;
  }
  const speech = await startSpeechServer();
  frameArgs.push("--var", `SPEECH_URL:${speech.url}`);
  say(
    `automatic captions: speech engine on ${speech.url} (pocketsphinx, US English: the local stand-in for Workers AI's Whisper)`,
  );
});

// args[0] is "dev"; the rest are wrangler dev's flags.
const api = inspectAsked ? { unknown: "--inspect" } : apiConfig([...args.slice(1), ...frameArgs]);

await step("start the worker", () => {
  const child = api.unknown
    ? spawnWrangler([...args, ...frameArgs], { stdio: ["inherit", "pipe", "pipe"] })
    : spawn(process.execPath, [DEV_WORKER, JSON.stringify(api)], {
        cwd: ROOT,
        env: { ...process.env, CI: "true" },
        stdio: ["inherit", "pipe", "pipe"],
      });
  filterOutput(child.stdout, process.stdout);
  filterOutput(child.stderr, process.stderr);
  if (api.unknown) {
    // wrangler dev has the same proxy as the inspector-free path, which nudges it itself.
    nudgeProxy(origin);
    say(
      `wrangler dev with its inspector (${api.unknown}); a long load grows its memory: docs/benchmarks.md, "Load"`,
    );
  } else say("inspector off (npm run dev -- --inspect for DevTools)");
  // The one durability difference from production (docs/operations.md, "Local development").
  say(
    "queues (player events, feed rebuilds, webhooks) live in this process's memory: a kill -9 loses what they hold; Cloudflare Queues persist",
  );
  say(`serving ${origin} (API reference: ${origin}/docs); stop with Ctrl-C`);
  const ready = new AbortController();
  runCronOnceReady(origin, ready.signal);
  // Ctrl-C in a terminal reaches the whole process group; forwarding covers signals sent to
  // this process alone (kill <pid>, process managers). Staying alive until the child exits lets
  // wrangler shut workerd down cleanly.
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      stopping = true;
      ready.abort();
      if (child.exitCode === null && child.signalCode === null)
        child.kill(signal === "SIGHUP" ? "SIGTERM" : signal);
    });
  }
  return new Promise((resolve, reject) => {
    child.on("error", (err) => {
      ready.abort();
      reject(err);
    });
    child.on("exit", (code, signal) => {
      ready.abort();
      if (!stopping && code !== 0)
        console.error(`\nnpm run dev: wrangler exited with ${signal ?? `code ${code}`}`);
      // Exit like the child did: its code, or 128 + signal number when a signal ended it.
      process.exit(code ?? 128 + (osConstants.signals[signal] ?? 0));
    });
  });
});
