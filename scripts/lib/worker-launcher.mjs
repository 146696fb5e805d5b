// Starting a local worker (wrangler dev, or scripts/lib/dev-worker.mjs) as a child process of its
// own process group, and stopping it with everything it started (wrangler, workerd, esbuild):
// used by the benches and the e2e harness.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const STOP_TIMEOUT_MS = 10_000;

/** wrangler's environment for a tool: never prompt, no metrics, no request.cf download (offline). */
export function wranglerEnv() {
  return {
    ...process.env,
    CI: "true",
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
}

/**
 * What makes wrangler dev answer as production does when a worker answers before reading the
 * body: by default wrangler wraps the worker in a middleware that reads every unread request
 * body to its end before the answer goes out (production does not), so live ingest refusing a
 * wrong key at once would seem to wait for the whole upload. Off, its local proxy (wrangler 4.86)
 * shows what an HTTP/1.1 stack does with such early answers: a client still writing may see its
 * connection reset, the proxy may answer 503 ("Your worker restarted mid-request"), and a HEAD
 * with a chunked body is left unanswered; so only the tests and benches of early answers set it
 * (test/e2e/live.test.ts, bench/ingest-flood.mjs), and `npm run dev` keeps wrangler's default.
 */
export const PRODUCTION_BODY_READS = { WRANGLER_DISABLE_REQUEST_BODY_DRAINING: "true" };

/**
 * Runs `node <args>` as the leader of a new process group. stop() sends the group SIGTERM, then
 * SIGKILL if it has not exited within 10 s, and once more after (workerd may outlive wrangler by a
 * moment); the group is killed too if this process exits without stop() (a crash, Ctrl-C).
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export function launchProcessGroup(args, { cwd, env = wranglerEnv() } = {}) {
  const child = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const signalGroup = (signal) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  /** Resolves true once the leader has exited, false after ms. */
  const waitExit = (ms) =>
    exited()
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), ms);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
  const onExit = () => signalGroup("SIGKILL");
  process.once("exit", onExit);
  const stop = async () => {
    process.removeListener("exit", onExit);
    if (!exited()) {
      signalGroup("SIGTERM");
      if (!(await waitExit(STOP_TIMEOUT_MS))) signalGroup("SIGKILL");
    }
    signalGroup("SIGKILL");
    await waitExit(STOP_TIMEOUT_MS);
  };
  return { child, exited, waitExit, stop };
}

/**
 * The URL of the `READY <url>` line scripts/lib/dev-worker.mjs prints once it serves; every
 * stdout line goes to onLine first. Rejects when the process exits first or after timeoutMs.
 */
export function readyUrl(child, { timeoutMs, onLine = () => {}, describe = () => "" }) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`the worker did not start within ${timeoutMs / 1000} s:\n${describe()}`)),
      timeoutMs,
    );
    createInterface({ input: child.stdout }).on("line", (line) => {
      onLine(line);
      const m = /^READY (http\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`the worker exited (${signal ?? code}) before it was ready:\n${describe()}`),
      );
    });
  });
}
