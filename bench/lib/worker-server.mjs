// A worker of this checkout for a benchmark run, started through wrangler's own API
// (unstable_startWorker) with the DevTools inspector OFF: wrangler 4.86's dev server keeps every
// inspector message in memory until DevTools attaches (it ran out of heap after ~29,000 requests
// of `wrangler dev`), and the CLI has no flag that turns the inspector off.
//
// Run as a child process by the benches: `node bench/lib/worker-server.mjs --port P
// [--persist-to DIR] [--var NAME:VALUE ...]`. It prints `ready <url>` once it answers, then the
// worker's log lines (one JSON line per request or queue batch) on stdout, and stops on SIGTERM.
import { parseArgs } from "node:util";
import { unstable_startWorker } from "wrangler";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    "persist-to": { type: "string" },
    var: { type: "string", multiple: true, default: [] },
  },
});
const port = Number(values.port);
const url = `http://127.0.0.1:${port}`;
const vars = Object.fromEntries(
  [`PUBLIC_BASE_URL:${url}`, ...values.var].map((v) => {
    const i = v.indexOf(":");
    return [v.slice(0, i), { type: "plain_text", value: v.slice(i + 1) }];
  }),
);
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

const worker = await unstable_startWorker({
  config: "wrangler.toml",
  bindings: vars,
  dev: {
    remote: false,
    inspector: false,
    watch: false,
    testScheduled: true,
    logLevel: "log",
    server: { hostname: "127.0.0.1", port },
    persist: values["persist-to"] ?? ".wrangler/state",
  },
});
await worker.ready;
console.log(`ready ${url}`);
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, async () => {
    await worker.dispose().catch(() => undefined);
    process.exit(0);
  });
}
