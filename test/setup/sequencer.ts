// Orders the test files of every project together, longest first (by their last run), so the
// e2e project's browser and server files, which mostly wait, run beside the workers' files,
// which mostly compute: vitest's own order runs the projects one after another, and on two cores
// the whole run then takes the sum of both. Files with no recorded time (a fresh clone, a new
// file) go first, taken from each project in turn: ordered by project, a fresh clone ran every
// e2e, sdk and unit file before the first workers file (at 293 s of 722 s in a busy-machine run).
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
    // Each file's place among its project's files without a time: the round-robin's round.
    const rounds = new Map<string, number>();
    return sorted
      .map((spec, index) => {
        const duration = lastDuration(spec);
        const round = duration === Infinity ? (rounds.get(spec.project.name) ?? 0) : 0;
        if (duration === Infinity) rounds.set(spec.project.name, round + 1);
        return { spec, index, duration, round };
      })
      .sort((a, b) => b.duration - a.duration || a.round - b.round || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
