// Builds sdk/player/dist: an ES module (index.mjs), a script-tag bundle (player-analytics.iife.js,
// global EdgeVideoPlayerAnalytics) and the type declarations. Run by `npm test` (pretest) and by
// the e2e harness, so a fresh clone tests what it builds. Usage: node sdk/player/scripts/build.mjs
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const DIST = join(PACKAGE_DIR, "dist");
export const BUNDLES = { esm: join(DIST, "index.mjs"), iife: join(DIST, "player-analytics.iife.js") };
export const GLOBAL_NAME = "EdgeVideoPlayerAnalytics";

function declarations() {
  const program = ts.createProgram([join(PACKAGE_DIR, "src", "index.ts")], {
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: [],
    strict: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: join(PACKAGE_DIR, "src"),
    outDir: DIST,
  });
  const result = program.emit();
  const errors = ts.getPreEmitDiagnostics(program).concat(result.diagnostics);
  if (errors.length > 0) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => PACKAGE_DIR, getNewLine: () => "\n" };
    throw new Error(`type declarations failed:\n${ts.formatDiagnostics(errors, host)}`);
  }
}

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
