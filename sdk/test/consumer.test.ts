// The SDK packages as an app that installs them sees them (issue 19): each package copied into a
// fresh node_modules with only the dependencies its package.json declares, then a consumer
// compiled by TypeScript under the module settings apps use (NodeNext, Node16, Bundler), with
// skipLibCheck as usual. A wrong API path must be an error in every one of them (declarations
// whose imports do not resolve turn every type into `any`, and nothing complains). Then every
// code sample of the READMEs and docs/tour.md compiles against the same packages. Needs the packages built
// (`npm test` builds them first: npm run build, npm run build:client).
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const PACKAGES = {
  "@edge-video-catalog/client": join(ROOT, "sdk", "client"),
  "@edge-video-catalog/player": join(ROOT, "sdk", "player"),
};

let app: string;

/** Installs a package the way npm would lay it out: its published files, then its dependencies (from this repository's node_modules). */
function install(into: string, name: string, from: string, seen = new Set<string>()): void {
  if (seen.has(name)) return;
  seen.add(name);
  const target = join(into, "node_modules", name);
  mkdirSync(dirname(target), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(from, "package.json"), "utf8")) as {
    files?: string[];
    dependencies?: Record<string, string>;
  };
  if (name in PACKAGES) {
    mkdirSync(target, { recursive: true });
    for (const entry of ["package.json", ...(manifest.files ?? [])])
      if (existsSync(join(from, entry)))
        cpSync(join(from, entry), join(target, entry), { recursive: true });
  } else {
    symlinkSync(from, target);
  }
  for (const dependency of Object.keys(manifest.dependencies ?? {}))
    install(into, dependency, join(ROOT, "node_modules", dependency), seen);
}

const SETTINGS: Record<string, ts.CompilerOptions> = {
  NodeNext: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  Node16: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
  Bundler: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
};

/**
 * Parsed files outside the app's own sources (TypeScript's libs, the installed packages) are the
 * same for every compilation of this file: parsed once, not once per compile (lib.dom.d.ts alone
 * is ~2 MB): 8.1 s → 3.7 s for this file alone.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();
/**
 * A whole-program type check per test: the first one parses every lib and package (~1.5 s alone,
 * over 5 s, vitest's default, in a loaded full run on 2 cores).
 */
const COMPILE_TIMEOUT_MS = 30_000;
function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, shouldCreate) => {
    if (fileName.startsWith(`${app}/`) && !fileName.includes("/node_modules/"))
      return read(fileName, language, onError, shouldCreate);
    const key = `${fileName}\0${JSON.stringify(language)}`;
    if (!parsed.has(key)) parsed.set(key, read(fileName, language, onError, shouldCreate));
    return parsed.get(key);
  };
  return host;
}

/** TypeScript's diagnostics for these files of the app, as text. */
function compile(
  files: Record<string, string>,
  settings: ts.CompilerOptions,
  allowJs = false,
): string[] {
  const names = Object.keys(files).map((f) => join(app, f));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(app, file), text);
  const options: ts.CompilerOptions = {
    strict: true,
    ...settings,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: [],
    skipLibCheck: true,
    noEmit: true,
    allowJs,
    checkJs: allowJs,
  };
  const program = ts.createProgram(names, options, cachingHost(options));
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${d.file.fileName.slice(app.length + 1)}: ` : ""}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}

beforeAll(() => {
  for (const dir of Object.values(PACKAGES)) {
    if (!existsSync(join(dir, "dist", "index.d.ts")))
      throw new Error(
        `${dir}/dist has no declarations: run npm run build and npm run build:client (npm test does)`,
      );
  }
  app = mkdtempSync(join(tmpdir(), "evc-consumer-"));
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  for (const [name, dir] of Object.entries(PACKAGES)) install(app, name, dir);
});
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe("the packages' types in a new app", () => {
  const consumer = `
import { createCatalogClient, type Content } from "@edge-video-catalog/client";
import { attach, type PlayerAnalytics } from "@edge-video-catalog/player";

const client = createCatalogClient({ baseUrl: "https://api.example.com", credentials: { syncCode: "s" } });
export async function titles(): Promise<string[]> {
  const { data } = await client.api.GET("/v2/videos", { params: { query: { tags: "news" } } });
  return (data?.data ?? []).map((video) => video.title);
}
export const upload = (file: Blob): Promise<Content> => client.uploadVideo(file, { title: "t" });
export const player = (video: HTMLVideoElement): PlayerAnalytics => attach(video, { endpoint: "https://api.example.com", syncCode: "s", contentKey: "k", consent: false });
// @ts-expect-error a path the API does not have
client.api.GET("/v2/nonexistent-path", {});
// @ts-expect-error a query parameter E6 does not take
client.api.GET("/v2/videos", { params: { query: { nonexistent: 1 } } });
`;

  for (const [mode, settings] of Object.entries(SETTINGS)) {
    it(
      `type-checks under ${mode} resolution, and refuses a wrong path`,
      () => {
        // An unused @ts-expect-error is itself an error: types that became `any` fail here.
        expect(compile({ [`consumer-${mode}.ts`]: consumer }, settings)).toEqual([]);
      },
      COMPILE_TIMEOUT_MS,
    );
  }
});

/** The ```js, ```ts and inline-script ```html samples of a markdown file. */
function samples(markdown: string): { lang: string; code: string; line: number }[] {
  const out: { lang: string; code: string; line: number }[] = [];
  const fence = /^( *)```(\w+)\n([\s\S]*?)^\1```/gm;
  for (const m of markdown.matchAll(fence)) {
    const indent = m[1]!.length;
    const code = m[3]!
      .split("\n")
      .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
      .join("\n");
    const line = markdown.slice(0, m.index).split("\n").length;
    if (m[2] === "js" || m[2] === "ts") out.push({ lang: m[2], code, line });
    if (m[2] === "html")
      for (const s of code.matchAll(/<script>([\s\S]*?)<\/script>/g))
        out.push({ lang: "js", code: s[1]!, line });
  }
  return out;
}

/**
 * Compiles a sample against the installed packages. A sample names things it does not define (a
 * `file`, the page's `video`): each name TypeScript cannot find is declared `any` and the sample
 * compiled again, so what remains are errors against the packages' real types.
 */
function compileSample(name: string, code: string, lang: string): string[] {
  const declared = new Set<string>();
  // The script-tag bundle's global (the IIFE) is the ES module's exports.
  const global = `declare const EdgeVideoPlayerAnalytics: typeof import("@edge-video-catalog/player");\n`;
  for (;;) {
    const preamble = [...declared].map((n) => `declare const ${n}: any;`).join("\n");
    const file = `${name}.ts`;
    // A JavaScript sample is checked as JavaScript users run it: the API's types, without strict null checks.
    const errors = compile(
      { [file]: `${global}${preamble}\n${code}\nexport {};\n` },
      { ...SETTINGS.Bundler!, ...(lang === "js" && { strict: false }) },
    );
    const missing = errors
      .map(
        (e) =>
          e.match(/TS(?:2304|2552) Cannot find name '(\w+)'/)?.[1] ??
          e.match(/TS18004 No value exists in scope for the shorthand property '(\w+)'/)?.[1],
      )
      .filter((n): n is string => !!n && !declared.has(n));
    if (missing.length === 0) return errors;
    for (const n of missing) declared.add(n);
  }
}

describe("the docs' code samples", () => {
  for (const readme of ["docs/tour.md", "sdk/client/README.md", "sdk/player/README.md"]) {
    const found = samples(readFileSync(join(ROOT, readme), "utf8"));
    it(
      `${readme}: ${found.length} samples compile against the packages`,
      () => {
        expect(found.length).toBeGreaterThan(0);
        for (const [i, sample] of found.entries()) {
          expect(
            compileSample(`sample-${readme.replace(/\W/g, "-")}-${i}`, sample.code, sample.lang),
            `${readme}:${sample.line}`,
          ).toEqual([]);
        }
      },
      COMPILE_TIMEOUT_MS,
    );
  }
});
