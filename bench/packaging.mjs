// Packaging benchmark (issue 34): the probe and the HLS index, as E2 runs them, on every file of
// the malformed corpus (test/malformed-corpus.ts, made from the fixtures), in Node: the time
// and the heap growth of each, and the worst of both. docs/benchmarks.md has the table.
//
//   npm run bench:packaging
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withTsModule } from "../scripts/lib/ts-module.mjs";
import { markdownTable } from "./lib/report.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

const rows = await withTsModule(join(ROOT, "bench", "packaging-cost.ts"), ({ measure }) =>
  measure(join(ROOT, "test", "fixtures")),
);
console.log("\n## Packaging the malformed corpus (probe + index + first segment)\n");
console.log(
  markdownTable(
    [
      { title: "File", value: (r) => r.name, align: "left" },
      { title: "Bytes", value: (r) => r.bytes.toLocaleString("en-US") },
      { title: "Outcome", value: (r) => r.outcome.slice(0, 90), align: "left" },
      { title: "ms", value: (r) => r.ms.toFixed(1) },
      { title: "Heap MB", value: (r) => r.heapMb.toFixed(1) },
    ],
    rows,
  ),
);
const worst = (key) => rows.reduce((a, b) => (b[key] > a[key] ? b : a));
const slow = worst("ms");
const big = worst("heapMb");
console.log(`\nworst time: ${slow.ms.toFixed(1)} ms (${slow.name})`);
console.log(`worst heap growth: ${big.heapMb.toFixed(1)} MB (${big.name})`);
const errors = rows.filter((r) => r.outcome.startsWith("ERROR"));
if (errors.length) {
  console.error(`${errors.length} file(s) failed with an unexpected error`);
  process.exitCode = 1;
}
