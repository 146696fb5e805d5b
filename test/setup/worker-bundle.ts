// The worker's own modules (src/, without its packages) built once per run with esbuild, for the
// workers project: the pool loads a worker module by module into every test file's runtime,
// and src/ is ~240 modules, which cost each file ~3 s before its first test (a file with one
// empty test: 3.2–3.8 s of setup; with a three-line worker as main, 0.15 s). Built, the worker
// is a few files: the entry points the tests import (src/index.ts, and each src module a test
// imports), and the chunks esbuild splits out of what they share, so every module exists once:
// a test importing ../src/index gets the instance SELF runs (the pool's `main`), and a test
// importing ../src/db/client the one the worker uses. The packages stay imports, resolved by
// Vite as before (one copy, shared with the tests). Production is bundled by esbuild too
// (wrangler deploy).

import fs from "node:fs";
import path from "node:path";
import { type BuildOptions, build, context } from "esbuild";
import type { Plugin } from "vitest/config";

const SOURCE = /\.tsx?$/;
const isTest = (file: string) => /\.test\.tsx?$/.test(file);
const relativeImport = /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"?]+)"/g;

/** The file a relative import names: as written, or with .ts / /index.ts added. */
function resolveSource(specifier: string, importer: string): string | null {
  const base = path.resolve(path.dirname(importer), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (SOURCE.test(candidate) && fs.existsSync(candidate) && fs.statSync(candidate).isFile())
      return candidate;
  }
  return null;
}

/** The test files of the workers project and the modules they share (test/ without e2e/ and unit/, src/**\/*.workers.test.ts). */
function testModules(root: string): string[] {
  const out: string[] = [];
  for (const file of fs.readdirSync(path.join(root, "test"), {
    recursive: true,
    encoding: "utf8",
  })) {
    if (SOURCE.test(file) && !/^(e2e|unit)[/\\]/.test(file))
      out.push(path.join(root, "test", file));
  }
  for (const file of fs.readdirSync(path.join(root, "src"), {
    recursive: true,
    encoding: "utf8",
  })) {
    if (file.endsWith(".workers.test.ts")) out.push(path.join(root, "src", file));
  }
  return out;
}

/** src/index.ts and every module of src/ (not a test) that a test module imports. */
function entryPoints(root: string, srcDir: string): string[] {
  const entries = new Set([path.join(srcDir, "index.ts")]);
  for (const file of testModules(root)) {
    for (const [, specifier] of fs.readFileSync(file, "utf8").matchAll(relativeImport)) {
      const target = resolveSource(specifier!, file);
      if (target && target.startsWith(srcDir + path.sep) && !isTest(target)) entries.add(target);
    }
  }
  return [...entries].sort();
}

export interface WorkerBundle {
  /** The built src/index.ts: the pool's `main`. */
  main: string;
  /** Resolves a test's imports of src/ modules to their built entry points. */
  plugin: Plugin;
}

export async function bundleWorker(
  root: string,
  outDir: string,
  watch: boolean,
): Promise<WorkerBundle> {
  const srcDir = path.join(root, "src");
  const entries = entryPoints(root, srcDir);
  const builtPath = (source: string) =>
    path.join(outDir, path.relative(srcDir, source)).replace(SOURCE, ".js");
  const options: BuildOptions = {
    entryPoints: entries,
    outdir: outDir,
    outbase: srcDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    // Packages, the runtime's modules and Vite's query imports (?inline fixtures) stay imports.
    packages: "external",
    external: ["cloudflare:*", "node:*"],
    sourcemap: "linked",
    logLevel: "warning",
  };
  fs.rmSync(outDir, { recursive: true, force: true });
  if (watch) {
    // `vitest` (watch mode): esbuild rebuilds on every change in src/, and Vitest reruns the
    // tests whose built files changed.
    const rebuilding = await context(options);
    await rebuilding.rebuild();
    await rebuilding.watch();
  } else await build(options);
  const built = new Map(entries.map((e) => [e, builtPath(e)]));
  return {
    main: builtPath(path.join(srcDir, "index.ts")),
    plugin: {
      name: "worker-bundle",
      enforce: "pre",
      resolveId(specifier, importer) {
        if (!importer || !specifier.startsWith(".")) return null;
        const importerFile = importer.split("?")[0]!;
        if (importerFile.startsWith(outDir)) return null;
        const target = resolveSource(specifier.split("?")[0]!, importerFile);
        return (target && built.get(target)) ?? null;
      },
      // The built files' source maps without the sources' text: stack traces still point into
      // src/ (file, line, column), and every test file's runtime is sent half the bytes (the
      // largest chunk with its map: 1.15 MB, without the text: 0.61 MB).
      load(id) {
        const file = id.split("?")[0]!;
        if (
          !file.startsWith(outDir + path.sep) ||
          !file.endsWith(".js") ||
          !fs.existsSync(`${file}.map`)
        )
          return null;
        const code = fs.readFileSync(file, "utf8").replace(/\/\/# sourceMappingURL=\S+\s*$/, "");
        const map = JSON.parse(fs.readFileSync(`${file}.map`, "utf8")) as {
          version: number;
          mappings: string;
          sources: string[];
          sourcesContent?: string[];
        };
        map.sources = map.sources.map((s) => path.resolve(path.dirname(file), s));
        map.sourcesContent = map.sources.map(() => "");
        return { code, map };
      },
    },
  };
}

/**
 * The pre-bundled packages (zod, hono, drizzle…) without their source maps. Vitest sends every
 * module to every test file's runtime with its source map inlined, serialized on the main thread
 * and compressed on the socket: zod alone was 2.4 MB a file (0.65 MB of code), 6.5 MB in all, and
 * the main thread spent ~15 s of a run serializing and compressing it. Without the packages'
 * maps a file is sent 2.6 MB and `vitest run --project workers` went from 64–66 s to 52–55 s. A
 * stack trace through a package shows the bundled file's line instead of the package's source.
 */
export const dependenciesWithoutSourceMaps: Plugin = {
  name: "dependencies-without-source-maps",
  transform(code, id) {
    if (!id.includes("/deps_ssr/")) return null;
    // Vite keeps the loaded map when a transform returns the same code: hence the added newline.
    return { code: `${code}\n`, map: { mappings: "" } };
  },
};
