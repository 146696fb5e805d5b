// Runs the real worker under `wrangler dev --local` on a free loopback port with fresh state in a
// temporary directory, and stops it (wrangler, workerd and everything they started) on request.
import { randomBytes } from "node:crypto";
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../scripts/lib/net.mjs";
import { nudgeProxy } from "../../../scripts/lib/proxy-nudge.mjs";
import { launchProcessGroup, wranglerEnv } from "../../../scripts/lib/worker-launcher.mjs";
import { applyMigrations } from "../../../scripts/lib/wrangler.mjs";

export const ROOT = join(import.meta.dirname, "..", "..", "..");
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
// A hang detector: wrangler dev's start is slow on a busy machine, and the wait ends when it answers.
const READY_TIMEOUT_MS = 300_000;

export interface RunningWorker {
  url: string;
  adminToken: string;
  /** The temporary directory: local D1/R2/KV state, the env file and wrangler.log. */
  dir: string;
  stop(): Promise<void>;
}

function tail(file: string, lines = 40): string {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(-lines).join("\n") : "";
}

async function waitReady(
  url: string,
  exited: () => boolean,
  exitCode: () => unknown,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited())
      throw new Error(`wrangler dev exited (${exitCode()}) before answering:\n${tail(logFile)}`);
    try {
      const res = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `wrangler dev did not answer ${url} within ${READY_TIMEOUT_MS / 1000} s:\n${tail(logFile)}`,
  );
}

/**
 * Applies the D1 migrations (catalog and statistics) to a fresh state directory, then starts `wrangler dev` on 127.0.0.1
 * with a random free port. Secrets come from an env file of its own (so a developer's .dev.vars,
 * with perhaps R2 credentials, never applies); the admin token is random per run.
 */
export async function startWorker(
  options: {
    /** More variables for the env file (a test's own worker: the rendition test's transcoder). */
    vars?: Record<string, string>;
    /** More environment for wrangler itself (scripts/lib/worker-launcher.mjs). */
    env?: Record<string, string>;
  } = {},
): Promise<RunningWorker> {
  const dir = mkdtempSync(join(tmpdir(), "evc-e2e-"));
  const state = join(dir, "state");
  const logFile = join(dir, "wrangler.log");
  const envFile = join(dir, "e2e.env");
  const adminToken = `e2e-admin-${randomBytes(12).toString("hex")}`;
  // Every e2e request comes from 127.0.0.1: the per-IP throttles (failed authentications, events
  // and uncached public reads a minute; tested in the workers project) would make the files
  // depend on each other.
  writeFileSync(
    envFile,
    [
      `ADMIN_TOKEN=${adminToken}`,
      `SIGNING_SECRET=e2e-signing-${randomBytes(16).toString("hex")}`,
      "AUTH_FAILURES_PER_MINUTE=100000",
      "EVENTS_PER_IP_PER_MINUTE=10000000",
      "PUBLIC_READS_PER_IP_PER_MINUTE=10000000",
      // R2's minimum part size: uploads of a few MB make two real parts (resumed uploads).
      `CHUNK_SIZE=${5 * 1024 * 1024}`,
      // Webhook endpoints on the tests' loopback receiver.
      "WEBHOOKS_ALLOW_LOOPBACK=true",
      ...Object.entries(options.vars ?? {}).map(([name, value]) => `${name}=${value}`),
      "",
    ].join("\n"),
  );
  try {
    await applyMigrations({ persistTo: state });
    // A port found free can be taken before wrangler binds it: try again with other ports.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const inspectorPort = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const log = createWriteStream(logFile, { flags: "a" });
      // Its own process group, so stop() reaches workerd too.
      const { child, exited, stop } = launchProcessGroup(
        [
          WRANGLER,
          "dev",
          "--local",
          "--persist-to",
          state,
          "--ip",
          "127.0.0.1",
          "--port",
          String(port),
          "--inspector-port",
          String(inspectorPort),
          "--env-file",
          envFile,
          // URLs in answers and feed files name the server's own address (never a Host header).
          "--var",
          `PUBLIC_BASE_URL:${url}`,
          "--show-interactive-dev-session=false",
        ],
        { cwd: ROOT, env: { ...wranglerEnv(), ...options.env } },
      );
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
      try {
        await waitReady(url, exited, () => child.signalCode ?? child.exitCode, logFile);
        // wrangler dev's proxy loses a request now and then under bursts unless nudged.
        const stopNudging = nudgeProxy(url);
        return {
          url,
          adminToken,
          dir,
          stop: async () => {
            stopNudging();
            await stop();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      } catch (err) {
        await stop();
        if (attempt >= 3 || !/EADDRINUSE|address already in use/i.test(String(err))) throw err;
      }
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
