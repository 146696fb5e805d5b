// A vitest reporter that ends `npm test` with each project's time: from its first test file's start
// to its last file's end, counted from the run's start (projects run side by side, so the spans
// overlap), its files and tests.
// The README's "Tests" line quotes these figures.
import type { Reporter, TestModule } from "vitest/node";

interface Span {
  start: number;
  end: number;
  files: number;
  tests: number;
  failed: number;
}

export default class ProjectTimes implements Reporter {
  private runStart = Date.now();
  private spans = new Map<string, Span>();

  onTestRunStart() {
    this.runStart = Date.now();
  }

  onTestModuleStart(module: TestModule) {
    const name = module.project.name;
    const span = this.spans.get(name) ?? {
      start: Date.now(),
      end: Date.now(),
      files: 0,
      tests: 0,
      failed: 0,
    };
    this.spans.set(name, span);
  }

  onTestModuleEnd(module: TestModule) {
    const span = this.spans.get(module.project.name);
    if (!span) return;
    span.end = Date.now();
    span.files++;
    for (const test of module.children.allTests()) {
      span.tests++;
      if (test.result().state === "failed") span.failed++;
    }
  }

  onTestRunEnd() {
    if (this.spans.size === 0) return;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const lines = [...this.spans].map(
      ([name, s]) =>
        `  ${name.padEnd(8)} ${seconds(s.end - s.start).padStart(8)} (${seconds(s.start - this.runStart)} to ${seconds(s.end - this.runStart)})` +
        `  ${String(s.files).padStart(3)} files ${String(s.tests).padStart(4)} tests${s.failed ? `, ${s.failed} failed` : ""}`,
    );
    console.log(
      `\nTime per project (wall clock, side by side; whole run ${seconds(Date.now() - this.runStart)}):\n${lines.join("\n")}\n`,
    );
  }
}
