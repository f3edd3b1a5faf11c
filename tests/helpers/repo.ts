import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root, whatever folder the tests run from. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/** The `servelab` command as npm installs it. */
export const cliPath = join(repoRoot, 'bin', 'servelab.js');

/** Real nvidia-smi captures from one H200 box; see its README for the exact commands. */
export const h200FixtureDir = join(repoRoot, 'tests', 'fixtures', 'nvidia-smi', 'h200-1gpu');

/** Captures from the real Slurm test cluster; see its README for how they were made. */
export const slurmFixtureDir = join(repoRoot, 'tests', 'fixtures', 'slurm');
