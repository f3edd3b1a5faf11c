import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { h200FixtureDir, repoRoot } from '../../../tests/helpers/repo';
import type { BoxRunOptions, BoxRunResult } from '../box/box-transport';
import type { GpuMemorySample } from '../../shared/study/gpu-memory';
import { GPU_MEMORY_QUERY, GpuMemorySampler, parseGpuMemoryCsv } from './gpu-memory-sampler';

/** The real H200 row of `query-gpu.csv` cut to the sampler's fields (index, memory.used, memory.total) as nvidia-smi joins them. */
function realH200Row(): string {
  const row = readFileSync(join(h200FixtureDir, 'query-gpu.csv'), 'utf8').trim().split(', ');
  // query-gpu.csv's fields: index, name, uuid, memory.total, memory.used, …
  return `${[row[0], row[4], row[3]].join(', ')}\n`;
}

describe('parseGpuMemoryCsv', () => {
  it('reads the real nvidia-smi row format', () => {
    expect(realH200Row()).toBe('0, 0, 143771\n');
    expect(parseGpuMemoryCsv(realH200Row())).toEqual([{ index: 0, usedMiB: 0, totalMiB: 143771 }]);
  });

  it("reads the simulated box's answer to the same query, skipping its marker line", () => {
    const home = mkdtempSync(join(tmpdir(), 'servelab-simbox-smi-'));
    try {
      const [program, ...args] = GPU_MEMORY_QUERY.split(' ');
      const out = execFileSync(join(repoRoot, 'resources', 'simbox', 'bin', program!), args, {
        env: { ...process.env, SERVELAB_SIMBOX_HOME: home, SERVELAB_SIMBOX_GPU: 'h100', SERVELAB_SIMBOX_GPU_COUNT: '2' },
        encoding: 'utf8',
      });
      expect(out).toMatch(/SIMULATED/);
      expect(parseGpuMemoryCsv(out)).toEqual([
        { index: 0, usedMiB: 0, totalMiB: 81559 },
        { index: 1, usedMiB: 0, totalMiB: 81559 },
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('skips warnings, headers, missing values, cut-off and impossible rows instead of failing', () => {
    const output = [
      'WARNING: infoROM is corrupted at gpu 0000:00:06.0',
      'index, memory.used [MiB], memory.total [MiB]',
      '0, 40321, 143771',
      '1, [N/A], 143771',
      '2, [Not Supported], [Not Supported]',
      '3, 120',
      '4, 9999999, 81559',
      '5, -1, 81559',
      '6, 12.5, 81559',
      '7, 0, 0',
      '0, 1, 143771',
      '8, 2048, 81920, extra',
      '',
      '9,100,81920\r',
    ].join('\n');
    expect(parseGpuMemoryCsv(output)).toEqual([
      { index: 0, usedMiB: 40321, totalMiB: 143771 },
      { index: 9, usedMiB: 100, totalMiB: 81920 },
    ]);
    expect(parseGpuMemoryCsv('')).toEqual([]);
    expect(parseGpuMemoryCsv('NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver.\n')).toEqual([]);
  });
});

/** A box whose `run` answers from a script of results, recording when each call started and ended. */
function scriptedBox(answers: ((call: number) => Promise<BoxRunResult>)[]) {
  const calls: { script: string; started: number; ended?: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    calls,
    maxInFlight: () => maxInFlight,
    box: {
      async run(script: string, opts: BoxRunOptions): Promise<BoxRunResult> {
        const call = { script, started: Date.now() } as (typeof calls)[number];
        calls.push(call);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
          return await new Promise<BoxRunResult>((resolve, reject) => {
            const onAbort = () => reject(new Error('aborted'));
            opts.signal?.addEventListener('abort', onAbort, { once: true });
            answer(calls.length - 1)
              .then(resolve, reject)
              .finally(() => opts.signal?.removeEventListener('abort', onAbort));
          });
        } finally {
          inFlight--;
          call.ended = Date.now();
        }
      },
    },
  };
}

const ok = (stdout: string, delayMs = 0) => () => new Promise<BoxRunResult>((r) => setTimeout(() => r({ stdout, stderr: '', code: 0 }), delayMs));

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('GpuMemorySampler', () => {
  it('samples each host with the query, tolerates failed samples and stops', async () => {
    const a = scriptedBox([
      ok('0, 100, 81559\n1, 0, 81559\n'),
      () => Promise.reject(new Error('connection dropped')),
      ok('not csv at all\n'),
      () => Promise.resolve({ stdout: '', stderr: 'nvidia-smi: not found', code: 127 }),
      ok('0, 30000, 81559\n1, 5, 81559\n'),
    ]);
    const b = scriptedBox([ok('0, 7, 143771\n')]);
    const samples: GpuMemorySample[] = [];
    const sampler = new GpuMemorySampler({
      hosts: [
        { hostId: 'a', box: a.box },
        { hostId: 'b', box: b.box },
      ],
      intervalMs: 10,
      onSample: (s) => samples.push(s),
    });
    sampler.start();
    await until(() => samples.filter((s) => s.hostId === 'a').length >= 2);
    await sampler.stop();
    const callsAtStop = a.calls.length;
    expect(a.calls[0]!.script.trim()).toBe(GPU_MEMORY_QUERY);
    const fromA = samples.filter((s) => s.hostId === 'a');
    expect(fromA[0]!.gpus).toEqual([
      { index: 0, usedMiB: 100, totalMiB: 81559 },
      { index: 1, usedMiB: 0, totalMiB: 81559 },
    ]);
    // The three failed rounds gave no sample; the fifth did.
    expect(fromA[1]!.gpus[0]).toEqual({ index: 0, usedMiB: 30000, totalMiB: 81559 });
    expect(samples.some((s) => s.hostId === 'b' && s.gpus[0]!.totalMiB === 143771)).toBe(true);
    expect(Number.isNaN(Date.parse(fromA[0]!.at))).toBe(false);
    await new Promise((r) => setTimeout(r, 40));
    expect(a.calls.length).toBe(callsAtStop);
  });

  it('never overlaps itself when a sample takes longer than the interval', async () => {
    const slow = scriptedBox([ok('0, 1, 81559\n', 30)]);
    const samples: GpuMemorySample[] = [];
    const sampler = new GpuMemorySampler({ hosts: [{ hostId: 'slow', box: slow.box }], intervalMs: 5, onSample: (s) => samples.push(s) });
    sampler.start();
    await until(() => samples.length >= 3);
    await sampler.stop();
    expect(slow.maxInFlight()).toBe(1);
    for (let i = 1; i < slow.calls.length; i++) expect(slow.calls[i]!.started).toBeGreaterThanOrEqual(slow.calls[i - 1]!.ended!);
  });

  it('stop aborts a sample in flight and reports nothing after it', async () => {
    const hanging = scriptedBox([() => new Promise<BoxRunResult>(() => {})]);
    const samples: GpuMemorySample[] = [];
    const sampler = new GpuMemorySampler({ hosts: [{ hostId: 'h', box: hanging.box }], intervalMs: 10, onSample: (s) => samples.push(s) });
    sampler.start();
    await until(() => hanging.calls.length === 1);
    await sampler.stop();
    expect(hanging.calls[0]!.ended).toBeDefined();
    expect(samples).toEqual([]);
  });
});
