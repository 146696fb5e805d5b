// Type declarations (.d.ts) of an SDK package's src/index.ts into its dist folder, for the build
// scripts of sdk/player and sdk/client: browser and ES2022 libraries, no ambient types, strict.
import { join } from "node:path";
import ts from "typescript";

export function emitDeclarations(packageDir, outDir) {
  const program = ts.createProgram([join(packageDir, "src", "index.ts")], {
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: [],
    strict: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: join(packageDir, "src"),
    outDir,
  });
  const result = program.emit();
  const errors = ts.getPreEmitDiagnostics(program).concat(result.diagnostics);
  if (errors.length > 0) {
    const host = {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => packageDir,
      getNewLine: () => "\n",
    };
    throw new Error(`type declarations failed:\n${ts.formatDiagnostics(errors, host)}`);
  }
}
