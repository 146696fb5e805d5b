// Orders the test files of every project together, longest first (by their last run; files never
// run go first). Vitest's own order runs the projects one after another, so the e2e project's
// browser and server files, which mostly wait, never ran beside the workers' files, which mostly
// compute: on two cores the whole run took the sum of both.
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Within a project: vitest's order (failed first, then longest first).
    const sorted = await super.sort(files);
    const lastDuration = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(
        `${spec.project.name}:${path.relative(this.ctx.config.root, spec.moduleId)}`,
      )?.duration ?? Infinity;
    return sorted
      .map((spec, index) => ({ spec, index, duration: lastDuration(spec) }))
      .sort((a, b) => b.duration - a.duration || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
