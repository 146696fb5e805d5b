// The worker for `npm run bench:load`: scripts/lib/dev-worker.mjs (wrangler's API with the
// inspector off; see there why wrangler dev's inspector cannot take a long load) in a child
// process of its own process group, so its RSS is the server's alone and stop() ends wrangler,
// workerd and esbuild together. The state directory given is shared through symlinks (D1, R2,
// KV) except the Workers cache, which gets a temporary directory of its own: cold reads put
// thousands of entries there, and they are deleted with it.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../scripts/lib/net.mjs";
import { wranglerEnv } from "../../scripts/lib/worker-launcher.mjs";
import { applyMigrations } from "../../scripts/lib/wrangler.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DEFAULT_STATE = join(ROOT, ".wrangler", "state");
/** The worker's entry under wrangler's API, in a checkout. */
const DEV_WORKER = join("scripts", "lib", "dev-worker.mjs");
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

/** The state directory for the server: `persistTo`'s v3 stores, a cache of its own. */
function serverState(persistTo) {
  const source = join(persistTo, "v3");
  if (!existsSync(join(source, "d1"))) {
    throw new Error(
      `no local D1 state in ${persistTo}; seed it first: npm run seed:bulk -- --reset --videos 10000`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "evc-load-"));
  mkdirSync(join(dir, "state", "v3"), { recursive: true });
  for (const store of readdirSync(source)) {
    if (store !== "cache") symlinkSync(join(source, store), join(dir, "state", "v3", store));
  }
  return dir;
}

function runNode(args, cwd = ROOT) {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      args,
      {
        cwd,
        env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        if (err) fail(new Error(`node ${args.join(" ")} failed:\n${stdout}${stderr}`));
        else done(stdout.trim());
      },
    );
  });
}

/**
 * What `npm run dev` prepares, for a fresh checkout or state directory: the static assets when
 * dist/public is missing, the D1 migrations, and the demo data (idempotent upserts; a bulk
 * catalog in the same state stays as it is). Returns the lines to show.
 */
export async function prepareState({ persistTo = DEFAULT_STATE, root = ROOT } = {}) {
  const lines = [];
  if (!existsSync(join(root, "dist", "public"))) {
    await runNode([join(root, "scripts", "build-assets.mjs")], root);
    lines.push("built the static assets (dist/public)");
  }
  await applyMigrations({ persistTo: resolve(persistTo) });
  lines.push("D1 migrations applied (catalog and statistics)");
  lines.push(
    await runNode(
      [join(root, "scripts", "seed.mjs"), "--brief", "--persist-to", resolve(persistTo)],
      root,
    ),
  );
  return lines;
}

/**
 * Starts the worker on 127.0.0.1:`port` (0: a free port) against `persistTo` (default
 * .wrangler/state, what `npm run dev` and `npm run seed:bulk` use). `vars` are added to the
 * worker's variables; the server's output goes to `logFile` (default: inside the temporary
 * directory, deleted by stop()). Resolves with `{ url, pid, logFile, stop() }`; pid is the
 * process group's leader. `root`: another checkout whose worker to run (a baseline's code, with
 * this checkout's D1 state and migrations); `env`: more environment for wrangler.
 */
export async function startLoadServer({
  root = ROOT,
  env = {},
  persistTo = DEFAULT_STATE,
  port = 0,
  vars = {},
  logFile,
} = {}) {
  const dir = serverState(resolve(persistTo));
  if (!port) port = await freePort();
  logFile ??= join(dir, "server.log");
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  const config = {
    ip: "127.0.0.1",
    port,
    persist: join(dir, "state"),
    watch: false,
    logLevel: "warn",
    vars: {
      // URLs in answers (and the edge cache's keys) name the server's own address.
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SIGNING_SECRET: randomBytes(16).toString("hex"),
      ...vars,
    },
  };
  const child = spawn(process.execPath, [join(root, DEV_WORKER), JSON.stringify(config)], {
    cwd: root,
    // No prompts, no metrics, no download of Cloudflare's request.cf data (offline machines).
    env: { ...wranglerEnv(), ...env },
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
    const timer = setTimeout(
      () =>
        fail(
          new Error(
            `the server did not start within ${READY_TIMEOUT_MS / 1000} s (log: ${logFile})`,
          ),
        ),
      READY_TIMEOUT_MS,
    );
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
      fail(
        new Error(`the server exited (${signal ?? code}) before it was ready:\n${buffered ?? ""}`),
      );
    });
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, pid: child.pid, logFile, stop };
}
