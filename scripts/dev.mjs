// `npm run dev`: prepare local state (.dev.vars, D1 migrations, demo data), then run
// `wrangler dev`. Extra arguments go to wrangler dev and override the defaults below,
// e.g. `npm run dev -- --port 8790`.
import { constants as osConstants } from "node:os";
import { copyFileSync, existsSync } from "node:fs";
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

await step("create .dev.vars", () => {
  const vars = join(ROOT, ".dev.vars");
  if (!existsSync(vars)) {
    copyFileSync(join(ROOT, ".dev.vars.example"), vars);
    console.log("Created .dev.vars from .dev.vars.example (local secrets; it is gitignored).");
  }
});

await step("apply local D1 migrations", () => runWrangler(["d1", "migrations", "apply", "DB", "--local"]));

await step("seed demo data", () => seed({ remote: false }));

await step("start wrangler dev", () => {
  const child = spawnWrangler(devArgs(process.argv.slice(2)));
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
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (!stopping && code !== 0) {
        console.error(`\nnpm run dev: step "start wrangler dev" failed (wrangler exited with ${signal ?? `code ${code}`})`);
      }
      // Exit like the child did: its code, or 128 + signal number when a signal ended it.
      process.exit(code ?? 128 + (osConstants.signals[signal] ?? 0));
    });
  });
});
