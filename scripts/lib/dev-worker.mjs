// The worker under wrangler's API with the inspector off: what `npm run dev` runs by default and
// what `npm run bench:load` measures.
//
// Why not the `wrangler dev` CLI: wrangler 4.86 connects an inspector proxy to the worker and
// keeps every message the worker's inspector sends (one Runtime.consoleAPICalled per
// console.log, so one per request) in a buffer that is emptied only when DevTools attaches, and
// posts each one to wrangler's Node process as a debug log as well. Under a long load that grows
// without bound (it ran out of heap after ~29,000 requests; docs/benchmarks.md, "Load"). The CLI
// cannot turn the inspector off; its API can: unstable_startWorker({ dev: { inspector: false } })
// runs the same worker with the same local bindings, .dev.vars, static assets and proxy in front,
// and prints the same output (the worker's console lines, "Ready on ...").
//
// Run as a child process (importing wrangler installs signal handlers of its own):
//   node scripts/lib/dev-worker.mjs '<json>'
// JSON: { ip, port, persist, vars: { NAME: "value" }, envFiles: [path], assets, watch, logLevel }
// (assets: a directory served instead of wrangler.toml's [assets] directory).
// Prints "READY <url>" on stdout once it serves; SIGINT/SIGTERM/SIGHUP dispose it and exit.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { nudgeProxy } from "./proxy-nudge.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function serve({
  ip = "127.0.0.1",
  port = 8787,
  persist,
  vars = {},
  envFiles,
  assets,
  watch = false,
  logLevel = "log",
}) {
  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: join(ROOT, "wrangler.toml"),
    ...(envFiles?.length ? { envFiles } : {}),
    ...(assets ? { assets } : {}),
    bindings: Object.fromEntries(
      Object.entries(vars).map(([name, value]) => [
        name,
        { type: "plain_text", value: String(value) },
      ]),
    ),
    dev: {
      inspector: false,
      remote: false,
      server: { hostname: ip, port },
      ...(persist ? { persist } : {}),
      watch,
      liveReload: false,
      // GET /__scheduled runs the cron by hand (as wrangler dev --test-scheduled).
      testScheduled: true,
      logLevel,
    },
  });
  await worker.ready;
  const url = new URL(String(await worker.url)).origin;
  // wrangler's proxy loses a request now and then under bursts unless nudged (./proxy-nudge.mjs).
  const stopNudging = nudgeProxy(url);
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      stopNudging();
      await worker.dispose().catch(() => {});
      process.exit(0);
    });
  }
  process.stdout.write(`READY ${url}\n`);
}

serve(JSON.parse(process.argv[2] ?? "{}")).catch((err) => {
  console.error(err);
  process.exit(1);
});
