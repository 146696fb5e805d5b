// Builds sdk/player/dist: an ES module (index.mjs), a script-tag bundle (player-analytics.iife.js,
// global EdgeVideoPlayerAnalytics) and the type declarations. Run by `npm test` (pretest) and by
// the e2e harness, so a fresh clone tests what it builds. Usage: node sdk/player/scripts/build.mjs

import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { emitDeclarations } from "../../scripts/declarations.mjs";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const DIST = join(PACKAGE_DIR, "dist");
export const BUNDLES = {
  esm: join(DIST, "index.mjs"),
  iife: join(DIST, "player-analytics.iife.js"),
};
export const GLOBAL_NAME = "EdgeVideoPlayerAnalytics";

const declarations = () => emitDeclarations(PACKAGE_DIR, DIST);

export async function buildSdk() {
  rmSync(DIST, { recursive: true, force: true });
  const common = {
    entryPoints: [join(PACKAGE_DIR, "src", "index.ts")],
    bundle: true,
    minify: true,
    target: ["es2020"],
    legalComments: "none",
    logLevel: "warning",
  };
  await Promise.all([
    build({ ...common, format: "esm", outfile: BUNDLES.esm }),
    build({ ...common, format: "iife", globalName: GLOBAL_NAME, outfile: BUNDLES.iife }),
  ]);
  declarations();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await buildSdk();
    console.log(`sdk/player: built ${DIST}`);
  } catch (err) {
    console.error(`sdk/player build failed: ${err.message}`);
    process.exit(1);
  }
}
