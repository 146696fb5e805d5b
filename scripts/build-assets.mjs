// Builds dist/public, the worker's static assets ([assets] in wrangler.toml): the API
// reference (Swagger UI from the version-pinned swagger-ui-dist package, so /docs works offline
// and behind a firewall), the player SDK's script-tag bundle at /sdk/, and the publisher
// console's script and stylesheet at /console/ (its page is served by the worker, with its CSP). Run by `npm run dev`,
// `npm test` (pretest) and `npm run deploy`. Usage: node scripts/build-assets.mjs [--out DIR]
// (default dist/public; `npm run dev -- --assets DIR` builds into and serves another directory).
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { buildConsole, CONSOLE_DIST, CONSOLE_FILES } from "../console/scripts/build.mjs";
import { BUNDLES, buildSdk } from "../sdk/player/scripts/build.mjs";
import { ROOT } from "./lib/wrangler.mjs";

export const PUBLIC_DIR = join(ROOT, "dist", "public");
const require = createRequire(import.meta.url);

/**
 * Builds into a directory of its own and swaps it in, so a running `wrangler dev` (or a test
 * run beside another) never serves a half-built directory.
 */
export async function buildAssets(out = PUBLIC_DIR) {
  const building = `${out}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await buildInto(building);
  const old = `${out}.old-${process.pid}`;
  if (existsSync(out)) renameSync(out, old);
  renameSync(building, out);
  rmSync(old, { recursive: true, force: true });
}

async function buildInto(PUBLIC_DIR) {
  const docs = join(PUBLIC_DIR, "docs");
  mkdirSync(docs, { recursive: true });
  const swagger = dirname(require.resolve("swagger-ui-dist/package.json"));
  for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"])
    cpSync(join(swagger, file), join(docs, file));
  cpSync(join(ROOT, "assets", "docs"), docs, { recursive: true });
  await buildSdk();
  const sdk = join(PUBLIC_DIR, "sdk");
  mkdirSync(sdk, { recursive: true });
  cpSync(BUNDLES.iife, join(sdk, "player-analytics.js"));
  cpSync(BUNDLES.esm, join(sdk, "player-analytics.mjs"));
  // The service's icon: the console's (and the embed page's) <link rel="icon">.
  cpSync(join(ROOT, "assets", "favicon.svg"), join(PUBLIC_DIR, "favicon.svg"));
  // The service's player (embed/src; docs/player.md): ES modules split into chunks, so the
  // iframe page (player.js) and the in-page element (evc-player.js) share hls.js and the core,
  // and the ad code (@dailymotion/vast-client, @dailymotion/vmap) is a chunk loaded only when an
  // ad break is due.
  const embed = join(PUBLIC_DIR, "embed");
  mkdirSync(embed, { recursive: true });
  await build({
    entryPoints: {
      player: join(ROOT, "embed", "src", "embed.ts"),
      "evc-player": join(ROOT, "embed", "src", "element.ts"),
    },
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    target: "es2020",
    outdir: embed,
    chunkNames: "chunks/[name]-[hash]",
    legalComments: "linked",
    logLevel: "error",
    metafile: true,
  }).then((result) =>
    writeFileSync(join(dirname(PUBLIC_DIR), "embed-meta.json"), JSON.stringify(result.metafile)),
  );
  cpSync(join(ROOT, "embed", "src", "player.css"), join(embed, "player.css"));
  await buildConsole();
  const consoleDir = join(PUBLIC_DIR, "console");
  mkdirSync(consoleDir, { recursive: true });
  for (const file of CONSOLE_FILES) cpSync(join(CONSOLE_DIST, file), join(consoleDir, file));
  // Headers of the static assets (Workers static assets read _headers): the same hygiene as
  // the worker's answers, and the SDK bundles may be loaded from any site.
  writeFileSync(
    join(PUBLIC_DIR, "_headers"),
    [
      "/*",
      "  X-Content-Type-Options: nosniff",
      "  Referrer-Policy: no-referrer",
      "/sdk/*",
      "  Access-Control-Allow-Origin: *",
      // The player's modules and stylesheet are loaded by publishers' pages (module scripts
      // and the shadow root's stylesheet are CORS requests).
      "/embed/*",
      "  Access-Control-Allow-Origin: *",
      // The console's files: revalidated on every load (a deploy takes effect at once), never framed.
      "/console/*",
      "  Cache-Control: no-cache",
      "  Content-Security-Policy: default-src 'none'; frame-ancestors 'none'",
      "",
    ].join("\n"),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const out = values.out ? resolve(values.out) : PUBLIC_DIR;
  await buildAssets(out);
  console.log(`built ${out}`);
}
