// The worker for `npm run bench:load`, run without wrangler dev's inspector.
//
// Why not `wrangler dev`: wrangler 4.86's dev server connects an inspector proxy to the worker
// and keeps every message the worker's inspector sends (one Runtime.consoleAPICalled per
// console.log, so one per request) in a buffer that is only emptied when DevTools attaches;
// each message is also posted to wrangler's Node process as a debug log. Under load that grows
// without bound (docs/benchmarks.md, "Load"). The CLI cannot turn the inspector off, but its
// API can: unstable_startWorker({ dev: { inspector: false } }) runs the same worker, the same
// local bindings and the same proxy in front of it, with no inspector at all.
//
// startLoadServer() runs this file as a child process in its own process group (so its RSS is
// the server's alone, and stop() ends wrangler, workerd and esbuild together). The state
// directory given is shared through symlinks (D1, R2, KV) except the Workers cache, which gets
// a temporary directory of its own: cold reads put thousands of entries there, and they are
// deleted with it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

/** The state directory for the server: `persistTo`'s v3 stores, a cache of its own. */
function serverState(persistTo) {
  const source = join(persistTo, "v3");
  if (!existsSync(join(source, "d1"))) {
    throw new Error(`no local D1 state in ${persistTo}; seed it first: npm run seed:bulk -- --reset --videos 10000`);
  }
  const dir = mkdtempSync(join(tmpdir(), "evc-load-"));
  mkdirSync(join(dir, "state", "v3"), { recursive: true });
  for (const store of readdirSync(source)) {
    if (store !== "cache") symlinkSync(join(source, store), join(dir, "state", "v3", store));
  }
  return dir;
}

/** A loopback port nobody listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the worker on 127.0.0.1:`port` (0: a free port) against `persistTo` (default
 * .wrangler/state, what `npm run dev` and `npm run seed:bulk` use). `vars` are added to the
 * worker's variables; the server's output goes to `logFile` (default: inside the temporary
 * directory, deleted by stop()). Resolves with `{ url, pid, logFile, stop() }`; pid is the
 * process group's leader.
 */
export async function startLoadServer({ persistTo = join(ROOT, ".wrangler", "state"), port = 0, vars = {}, logFile } = {}) {
  const dir = serverState(resolve(persistTo));
  if (!port) port = await freePort();
  logFile ??= join(dir, "server.log");
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  const config = {
    port,
    persist: join(dir, "state"),
    vars: {
      // URLs in answers (and the edge cache's keys) name the server's own address.
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SIGNING_SECRET: randomBytes(16).toString("hex"),
      ...vars,
    },
  };
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(config)], {
    cwd: ROOT,
    // No prompts, no metrics, no download of Cloudflare's request.cf data (offline machines).
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stderr.pipe(log);
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Gone already.
    }
  };
  const onExit = () => signalGroup("SIGKILL");
  process.once("exit", onExit);
  const stop = async () => {
    process.removeListener("exit", onExit);
    if (!exited()) {
      signalGroup("SIGTERM");
      const done = await new Promise((done) => {
        const timer = setTimeout(() => done(false), STOP_TIMEOUT_MS);
        child.once("exit", () => {
          clearTimeout(timer);
          done(true);
        });
      });
      if (!done) signalGroup("SIGKILL");
    }
    // workerd may outlive its parent by a moment.
    signalGroup("SIGKILL");
    log.end();
    rmSync(dir, { recursive: true, force: true });
  };

  const url = await new Promise((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start within ${READY_TIMEOUT_MS / 1000} s (log: ${logFile})`)), READY_TIMEOUT_MS);
    let buffered = "";
    child.stdout.on("data", (chunk) => {
      log.write(chunk);
      if (buffered === null) return;
      buffered += chunk;
      const m = buffered.match(/^READY (\S+)$/m);
      if (m) {
        buffered = null;
        clearTimeout(timer);
        ready(m[1]);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`the server exited (${signal ?? code}) before it was ready:\n${buffered ?? ""}`));
    });
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, pid: child.pid, logFile, stop };
}

// The child: start the worker, say READY, dispose on SIGTERM/SIGINT.
async function serve({ port, persist, vars }) {
  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: join(ROOT, "wrangler.toml"),
    bindings: Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: "plain_text", value: String(value) }])),
    dev: {
      inspector: false,
      server: { hostname: "127.0.0.1", port },
      persist,
      watch: false,
      liveReload: false,
      testScheduled: true,
      logLevel: "warn",
    },
  });
  await worker.ready;
  const url = new URL(String(await worker.url)).origin;
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      await worker.dispose().catch(() => {});
      process.exit(0);
    });
  }
  process.stdout.write(`READY ${url}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  serve(JSON.parse(process.argv[2])).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
