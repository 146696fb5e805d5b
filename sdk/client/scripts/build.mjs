// Builds sdk/client/dist: one ES module (index.mjs, openapi-fetch bundled in, so the package has
// no runtime dependency) and its type declarations (the generated API types included). Run by
// `npm test` (pretest), the e2e harness and `npm run admin` (the CLI imports the build).

import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { emitDeclarations } from "../../scripts/declarations.mjs";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const DIST = join(PACKAGE_DIR, "dist");
export const BUNDLE = join(DIST, "index.mjs");

const declarations = () => emitDeclarations(PACKAGE_DIR, DIST);

/**
 * `types: false` (the e2e harness, the operator CLI) rebuilds the bundle alone and leaves the
 * declarations a full build wrote: an app that depends on the package keeps its types.
 */
export async function buildClient({ types = true } = {}) {
  if (types) rmSync(DIST, { recursive: true, force: true });
  await build({
    entryPoints: [join(PACKAGE_DIR, "src", "index.ts")],
    outfile: BUNDLE,
    bundle: true,
    format: "esm",
    minify: true,
    target: ["es2020"],
    legalComments: "none",
    logLevel: "warning",
  });
  if (types) declarations();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await buildClient({ types: !process.argv.includes("--no-types") });
    console.log(`sdk/client: built ${DIST}`);
  } catch (err) {
    console.error(`sdk/client build failed: ${err.message}`);
    process.exit(1);
  }
}
