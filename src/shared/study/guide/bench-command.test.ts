import { describe, expect, it } from 'vitest';
import { parseBenchText } from '../../results/parse-bench-text';
import { readBenchCommand } from './bench-command';
import { blockMatches, withIdentity } from './guide-workloads';

const cmd = (flags: string) => `vllm bench serve --model Qwen/Qwen3-8B --backend openai-chat --dataset-name sharegpt --num-prompts 200 ${flags}`;

describe('a guide’s vllm bench serve command, read into arrivals', () => {
  it('reads --request-rate and --burstiness as Poisson, Gamma or constant arrivals', () => {
    expect(readBenchCommand(cmd('--request-rate 4'), '0.11.1').workload).toMatchObject({ requestRate: 4 });
    expect(readBenchCommand(cmd('--request-rate 4'), '0.11.1').workload?.burstiness).toBeUndefined();
    expect(readBenchCommand(cmd('--request-rate 4 --burstiness 0.5'), '0.11.1').workload).toMatchObject({ requestRate: 4, burstiness: 0.5 });
    for (const inf of ['inf', 'Infinity', 'INF']) {
      const read = readBenchCommand(cmd(`--request-rate 8 --burstiness ${inf}`), '0.11.1');
      expect(read.problems).toEqual([]);
      expect(read.workload).toMatchObject({ requestRate: 8, burstiness: 'inf' });
    }
    expect(readBenchCommand(cmd('--request-rate inf'), '0.11.1').workload?.requestRate).toBeUndefined();
  });

  it('reads the --ramp-up-* flags as a ramp, and reports what the client itself refuses', () => {
    const ramp = readBenchCommand(cmd('--ramp-up-strategy exponential --ramp-up-start-rps 1 --ramp-up-end-rps 16'), '0.11.0');
    expect(ramp.problems).toEqual([]);
    expect(ramp.workload).toMatchObject({ rampUp: { strategy: 'exponential', startRps: 1, endRps: 16 } });
    expect(readBenchCommand(cmd('--request-rate 4 --ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 16'), '0.11.0').problems).toEqual([
      'requestRate must be left out of a ramped workload (the ramp sets the rate)',
    ]);
    expect(readBenchCommand(cmd('--ramp-up-strategy linear --ramp-up-start-rps 8 --ramp-up-end-rps 2'), '0.11.0').problems).toEqual([
      'rampUp.endRps must be at least the start rate (the client refuses a ramp down)',
    ]);
  });

  it('gives each workload of a rate sweep its own id', () => {
    const ids = ['--request-rate 1 --burstiness inf', '--request-rate 8 --burstiness inf', '--request-rate 8', '--ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 16'].map(
      (f) => withIdentity(readBenchCommand(cmd(f), '0.11.1').workload!).id,
    );
    expect(ids).toEqual(['sharegpt-200-unbounded-r1-const', 'sharegpt-200-unbounded-r8-const', 'sharegpt-200-unbounded-r8', 'sharegpt-200-unbounded-ramp1-16-linear']);
    expect(withIdentity(readBenchCommand(cmd(''), '0.11.1').workload!).id).toBe('sharegpt-200-unbounded');
  });

  it('matches a printed block to the workload at the rate the block says it ran', () => {
    // vllm/benchmarks/serve.py@v0.11.0:690-693 prints the rate line whenever --request-rate is not inf; the values are
    // a marked hand-written edge case in the real layout of tests/fixtures/vllm-bench-text.
    const block = parseBenchText(
      [
        '============ Serving Benchmark Result ============',
        'Successful requests:                     200       ',
        'Request rate configured (RPS):           8.00      ',
        'Benchmark duration (s):                  25.40     ',
        'Total input tokens:                      44000     ',
        'Total generated tokens:                  42000     ',
        'Request throughput (req/s):              7.87      ',
        '==================================================',
      ].join('\n'),
    ).blocks[0]!;
    const at = (f: string) => readBenchCommand(cmd(f), '0.11.1').workload!;
    expect(blockMatches(block, at('--request-rate 8 --burstiness inf'))).toBe(true);
    expect(blockMatches(block, at('--request-rate 4 --burstiness inf'))).toBe(false);
    expect(blockMatches(block, at(''))).toBe(false);
  });
});
