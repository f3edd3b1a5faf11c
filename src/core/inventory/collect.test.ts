import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir, readdir, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InventorySchema } from '../../shared/model/inventory';
import { h200FixtureDir } from '../../../tests/helpers/repo';
import { nvidiaSmiStandIn } from '../../../tests/helpers/sshd';
import { collectInventory, type CommandRunner } from './collect';

/** Runs the probe with the local sh and a PATH the test controls (not a login shell, so PATH stays as set). */
function localRunner(binDir: string, home: string): CommandRunner {
  return {
    run: (script) =>
      new Promise((resolve, reject) => {
        const child = spawn('sh', ['-s'], { env: { PATH: `${binDir}:/usr/local/bin:/usr/bin:/bin`, HOME: home } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.once('error', reject);
        child.once('close', (code) => resolve({ stdout, stderr, code }));
        child.stdin.end(script);
      }),
  };
}

describe('the probe script run by a real sh', () => {
  let dir: string;
  let bin: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-probe-'));
    bin = join(dir, 'bin');
    await mkdir(bin);
    await mkdir(join(dir, 'captures'));
    for (const name of await readdir(h200FixtureDir)) await copyFile(join(h200FixtureDir, name), join(dir, 'captures', name));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function standIn(script: string | null): Promise<void> {
    await rm(join(bin, 'nvidia-smi'), { force: true });
    if (script !== null) await writeFile(join(bin, 'nvidia-smi'), script, { mode: 0o755 });
  }

  it('inventories the H200 through the nvidia-smi stand-in', async () => {
    await standIn(nvidiaSmiStandIn(join(dir, 'captures')));
    const inventory = await collectInventory(localRunner(bin, dir));
    expect(InventorySchema.omit({ hostId: true }).parse(inventory)).toEqual(inventory);
    expect(inventory.gpuStatus).toBe('ok');
    expect(inventory.simulated).toBe(false);
    expect(inventory.gpus[0]).toMatchObject({ name: 'NVIDIA H200', memoryTotalMiB: 143771, computeCapability: '9.0', driverVersion: '580.159.04' });
    expect(inventory.cudaVersion).toBe('13.0');
    expect(inventory.driverVersion).toBe('580.159.04');
    expect(inventory.gpuProcesses).toEqual([]);
    expect(inventory.disk.path).toBe(dir);
    expect(inventory.disk.totalMiB).toBeGreaterThan(0);
    expect(inventory.cpuCount).toBeGreaterThan(0);
    expect(inventory.memoryTotalMiB).toBeGreaterThan(0);
    expect(inventory.hostname).toBeTruthy();
    expect(inventory.os.arch).toBeTruthy();
  });

  it('reports no-nvidia-smi without failing', async () => {
    await standIn(null);
    const inventory = await collectInventory(localRunner(bin, dir));
    expect(inventory.gpuStatus).toBe('no-nvidia-smi');
    expect(inventory.gpus).toEqual([]);
    expect(inventory.os.kernel).toMatch(/^Linux /);
  });

  it('passes on the driver failure message', async () => {
    await standIn(
      "#!/bin/sh\necho \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\"\nexit 9\n",
    );
    const inventory = await collectInventory(localRunner(bin, dir));
    expect(inventory.gpuStatus).toBe('error');
    expect(inventory.gpuMessage).toBe(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    );
  });

  it('reports a box with the driver but no GPU', async () => {
    await standIn('#!/bin/sh\necho "No devices were found"\nexit 6\n');
    const inventory = await collectInventory(localRunner(bin, dir));
    expect(inventory.gpuStatus).toBe('no-gpu');
  });

  it('fails clearly when the probe does not run to the end', async () => {
    const broken: CommandRunner = { run: async () => ({ stdout: 'fish: Unknown command', stderr: 'sh: not found', code: 127 }) };
    await expect(collectInventory(broken)).rejects.toMatchObject({ code: 'REMOTE_COMMAND_FAILED', message: expect.stringContaining('sh: not found') });
  });
});
