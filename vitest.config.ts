import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { LongestFirstSequencer } from './tests/helpers/file-order';

// Two projects: everything that runs in Node (core, CLI, Electron main, shared, preload, cross-process suites) and the
// renderer under jsdom. Playwright suites in tests/e2e run under their own runner.
// The ssh resolution differential (minutes of ssh/CLI processes) stays with the rest: it runs them at a lower CPU
// priority, so it takes the CPU the waiting suites leave idle instead of starving timed ones.
// Suites that run several whole studies or sshd instances at once, the latency example studies (at the demo's scale
// their decisions held on a two-core machine kept at a load of 4 to 8 by other work, far more than a second suite
// adds) and the verdicts study (its "no difference" needs an interval inside ±2%, which a third suite beside it once
// widened): two at a time, after the rest.
const HEAVY = [
  'tests/integration/study-kill9.test.ts',
  'tests/integration/study-two-processes.test.ts',
  'tests/integration/shell-quote-fuzz.test.ts',
  'tests/integration/study-examples-demo.test.ts',
  'tests/integration/study-examples-ssh.test.ts',
  'tests/integration/study-verdicts-demo.test.ts',
  // Seven daemons (MariaDB among them) for a two-node Slurm cluster with accounting.
  'tests/integration/slurm-cluster-two-nodes.test.ts',
  // A job's one-minute time limit, which Slurm enforces 60 to 90 s after the job started.
  'tests/integration/slurm-jobs.test.ts',
  'tests/integration/slurm-jobs-two-nodes.test.ts',
];
// The throughput example's decision (engines 13% apart, 1000 unbounded requests) changed at such a load: it runs
// alone, last. So does the mixture-of-experts example, which runs up to three simulated servers of 1000 unbounded
// requests at once itself: beside other suites, its layouts measured together were slowed by the machine, not by
// their GPUs, against a baseline measured alone.
const ALONE = ['tests/integration/study-examples-demo-throughput.test.ts', 'tests/integration/study-example-moe-demo.test.ts'];

export default defineConfig({
  test: {
    // Most suites wait on processes, sshd and the simulated GPU's sleeps rather than compute: three files at a time
    // keep a two-core machine busy (one of them is often the low-priority differential); the heavy group runs two.
    maxWorkers: 3,
    // The long cross-process suites start first, so the run does not end on one of them alone.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['src/core/**/*.test.ts', 'src/cli/**/*.test.ts', 'src/main/**/*.test.ts', 'src/shared/**/*.test.ts', 'src/preload/**/*.test.ts', 'tests/unit/**/*.test.ts', 'tests/helpers/**/*.test.ts', 'tests/integration/**/*.test.ts', 'tests/simbox/**/*.test.ts', 'tests/package/**/*.test.ts'],
          exclude: [...HEAVY, ...ALONE],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // After the rest, so the suites of group 0 do not starve the studies, and before the one that runs alone.
        test: {
          name: 'node-heavy',
          environment: 'node',
          include: HEAVY,
          maxWorkers: 2,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'node-alone',
          environment: 'node',
          include: ALONE,
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 2 },
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['src/renderer/**/*.test.{ts,tsx}'],
          setupFiles: ['tests/setup/renderer.ts'],
          testTimeout: 20_000,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
