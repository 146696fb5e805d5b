// `npm run dev`: prepare local state (.dev.vars, D1 migrations, demo data), then run
// `wrangler dev`. Extra arguments go to wrangler dev and override the defaults below,
// e.g. `npm run dev -- --port 8790`.
import { constants as osConstants } from "node:os";
import { copyFileSync, existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { seed } from "./seed.mjs";
import { ROOT, runWrangler, spawnWrangler } from "./lib/wrangler.mjs";

// `--test-scheduled` exposes GET /__scheduled so the cron can be triggered by hand.
const DEV_DEFAULTS = [["--local"], ["--ip", "127.0.0.1"], ["--port", "8787"], ["--test-scheduled"]];

async function step(name, fn) {
  try {
    await fn();
  } catch (err) {
    console.error(`\nnpm run dev: step "${name}" failed: ${err.message}`);
    process.exit(1);
  }
}

function devArgs(extra) {
  // A flag the caller passed (--port 8790 or --port=8790) replaces our default for it.
  const given = new Set(extra.filter((a) => a.startsWith("--")).map((a) => a.split("=")[0]));
  return ["dev", ...DEV_DEFAULTS.filter(([flag]) => !given.has(flag)).flat(), ...extra];
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
  const host = ["0.0.0.0", "*", "::", "[::]"].includes(ip) ? "127.0.0.1" : ip.includes(":") && !ip.startsWith("[") ? `[${ip}]` : ip;
  return `http://${host}:${flagValue(args, "--port") ?? "8787"}`;
}

const READY_TIMEOUT_MS = 30_000;

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
 * published without waiting for the next scheduled tick. Runs beside wrangler (its output is not
 * held up); gives up quietly after READY_TIMEOUT_MS or when wrangler exits (signal aborts).
 */
async function runCronOnceReady(origin, signal) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!signal.aborted && Date.now() < deadline) {
    try {
      const res = await fetch(`${origin}/__scheduled`, { signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]) });
      await res.body?.cancel();
      if (res.ok) {
        console.log(`npm run dev: ran the cron once (GET ${origin}/__scheduled): demo feed files published, e.g. ${origin}/demofeedall-feed.json`);
      } else {
        console.warn(`npm run dev: GET ${origin}/__scheduled answered HTTP ${res.status} (started without --test-scheduled?); feeds publish on the next cron run`);
      }
      return;
    } catch {
      // Not listening yet (or still starting): try again shortly.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  if (!signal.aborted) {
    console.warn(`npm run dev: ${origin} did not answer within ${READY_TIMEOUT_MS / 1000} s; run \`curl ${origin}/__scheduled\` to publish the demo feeds`);
  }
}

await step("create .dev.vars", () => {
  const vars = join(ROOT, ".dev.vars");
  if (!existsSync(vars)) {
    copyFileSync(join(ROOT, ".dev.vars.example"), vars);
    console.log("Created .dev.vars from .dev.vars.example (local secrets; it is gitignored).");
  }
});

await step("apply local D1 migrations", () => runWrangler(["d1", "migrations", "apply", "DB", "--local"]));

const given = devArgs(process.argv.slice(2));
const origin = localOrigin(given);
// URLs in responses and feed files use PUBLIC_BASE_URL (never a request's Host): the dev
// server's own address, unless the caller set it.
const args = given.some((a) => a.startsWith("PUBLIC_BASE_URL:")) ? given : [...given, "--var", `PUBLIC_BASE_URL:${origin}`];

await step("seed demo data", () => seed({ remote: false }));

// Checked before wrangler starts: a server already on the port would otherwise get our cron call.
const portTaken = await listening(origin);

await step("start wrangler dev", () => {
  const child = spawnWrangler(args);
  const ready = new AbortController();
  if (portTaken) {
    console.warn(`npm run dev: something already listens on ${origin}; not running the cron there (choose another port: npm run dev -- --port 8790)`);
  } else {
    runCronOnceReady(origin, ready.signal);
  }
  // A terminal's Ctrl-C already reaches the whole process group; forwarding covers signals sent
  // to this process alone (kill <pid>, process managers). Staying alive until the child exits
  // lets wrangler shut workerd down cleanly.
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  return new Promise((resolve, reject) => {
    child.on("error", (err) => {
      ready.abort();
      reject(err);
    });
    child.on("exit", (code, signal) => {
      ready.abort();
      if (!stopping && code !== 0) {
        console.error(`\nnpm run dev: step "start wrangler dev" failed (wrangler exited with ${signal ?? `code ${code}`})`);
      }
      // Exit like the child did: its code, or 128 + signal number when a signal ended it.
      process.exit(code ?? 128 + (osConstants.signals[signal] ?? 0));
    });
  });
});
