// A TypeScript module run in Node (a bench timing the service's own code, e.g.
// bench/hls-cost.ts), bundled with esbuild into a temporary file and imported. The service's
// modules may import `cloudflare:workers` (its `env`, for the statistics shards); in Node that
// import is an empty `env`: the timed code must not reach a binding.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const workersStub = {
  name: "cloudflare-workers-stub",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:workers$/ }, (args) => ({
      path: args.path,
      namespace: "cloudflare-workers-stub",
    }));
    b.onLoad({ filter: /.*/, namespace: "cloudflare-workers-stub" }, () => ({
      contents: "export const env = {};",
      loader: "js",
    }));
  },
};

/** Runs `use` with the module's exports; the bundle is removed afterwards. */
export async function withTsModule(path, use) {
  const dir = mkdtempSync(join(tmpdir(), "evc-ts-"));
  try {
    const out = join(dir, `${basename(path, ".ts")}.mjs`);
    const bundled = await build({
      entryPoints: [path],
      bundle: true,
      platform: "node",
      format: "esm",
      write: false,
      logLevel: "error",
      plugins: [workersStub],
    });
    writeFileSync(out, bundled.outputFiles[0].text);
    return await use(await import(pathToFileURL(out).href));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
