// The order vitest starts test files in within a group: the cross-process suites (tests/integration, tests/simbox)
// first, then the unit suites, each larger file first. The cross-process suites mostly wait on sshd, processes and
// the simulated GPU's sleeps and last seconds to minutes each; the unit suites are short and keep the CPU busy in
// the gaps. Left to vitest, a fresh clone (no results cache) runs one project after the other by file size, so a
// long integration file could start last and the run end on it alone.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Suites known to run for minutes, started before all others of their group. */
const LONGEST = ['tests/integration/ssh-resolve-differential.test.ts', 'tests/integration/study-examples-ssh.test.ts', 'tests/integration/study-examples-demo.test.ts'];

/** Lower runs first: the longest-running kinds of suite first. */
function rankOf(file: string): number {
  if (LONGEST.includes(file)) return 0;
  if (file.startsWith('tests/integration/') || file.startsWith('tests/simbox/')) return 1;
  return 2;
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    // Vitest's own order (failed first, then by the cached duration or the file size) breaks the ties.
    const vitestOrder = await super.sort(files);
    const position = new Map(vitestOrder.map((spec, index) => [spec, index]));
    const rank = new Map(files.map((spec) => [spec, rankOf(relative(root, spec.moduleId))]));
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        (rank.get(a) ?? 2) - (rank.get(b) ?? 2) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
