// Builds the publisher console (console/src, Preact + uPlot, the typed client and the player SDK
// bundled in) into console/dist: console.js (one ES module, minified) and console.css.
// scripts/build-assets.mjs copies them to dist/public/console, which `npm run dev`, `npm test`
// and `npm run deploy` build. Usage: node console/scripts/build.mjs

import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

export const CONSOLE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CONSOLE_DIST = join(CONSOLE_DIR, "dist");
export const CONSOLE_FILES = ["console.js", "console.css"];

export async function buildConsole() {
  rmSync(CONSOLE_DIST, { recursive: true, force: true });
  mkdirSync(CONSOLE_DIST, { recursive: true });
  await build({
    entryPoints: { console: join(CONSOLE_DIR, "src", "main.tsx") },
    outdir: CONSOLE_DIST,
    bundle: true,
    format: "esm",
    minify: true,
    target: ["es2022"],
    jsx: "automatic",
    jsxImportSource: "preact",
    // uPlot's stylesheet is imported by the chart module; esbuild writes it to console.css.
    loader: { ".css": "css" },
    legalComments: "none",
    logLevel: "warning",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildConsole();
  console.log(`built ${CONSOLE_DIST}`);
}
