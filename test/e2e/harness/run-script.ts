// Runs one of the project's Node scripts as a child process, as a developer would, for the tests
// of the scripts themselves (seed:bulk, admin). Its time depends on the machine (every wrangler process
// it starts loads wrangler and a workerd, slow on a busy machine), so it is measured and
// reported, not limited: the child is stopped only when it stalls, printing nothing for
// SILENT_LIMIT_MS. Tests running scripts this way have no runner timeout ({ timeout: 0 }).
import { spawn } from "node:child_process";

/**
 * The longest a script may print nothing: seed:bulk's longest silent stretch is two wrangler
 * processes (ANALYZE, then the summary's queries); this is a wide margin over that even when
 * the machine is busy, and still ends a hung child.
 */
export const SILENT_LIMIT_MS = 180_000;

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall-clock time of the run. */
  ms: number;
  /** Set when the child was stopped for printing nothing for the silent limit. */
  stalled: boolean;
}

export function runScript(
  script: string,
  args: string[],
  { env = process.env, silentLimitMs = SILENT_LIMIT_MS } = {},
): Promise<ScriptRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let stalled = false;
    let timer: NodeJS.Timeout;
    const watch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        child.kill("SIGKILL");
      }, silentLimitMs);
    };
    watch();
    child.stdout.on("data", (d) => {
      stdout += d;
      watch();
    });
    child.stderr.on("data", (d) => {
      stderr += d;
      watch();
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr: stalled
          ? `${stderr}\n(stopped: nothing printed for ${silentLimitMs / 1000} s)`
          : stderr,
        ms: Date.now() - started,
        stalled,
      });
    });
  });
}
