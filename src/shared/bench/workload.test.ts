import { describe, expect, it } from 'vitest';
import { ServelabError } from '../contract/errors';
import { buildBenchServeArgv } from './bench-serve-argv';
import { CONSTANT_RATE_SWEEP, describeWorkload, parseWorkload, WORKLOAD_PRESETS, workloadPreset } from './workload';

const CLIENT = '0.11.0';
const target = { model: 'Qwen/Qwen3-8B', port: 8000, defaultShareGptPath: 'ShareGPT_V3_unfiltered_cleaned_split.json', resultDir: 'res', resultFilename: 't1.json' };
const ALWAYS = '--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99 --save-result --save-detailed --result-dir res --result-filename t1.json';

describe('WORKLOAD_PRESETS', () => {
  it("holds the reference studies' workloads, each valid", () => {
    expect(WORKLOAD_PRESETS.map((w) => w.id)).toEqual([
      'sharegpt-c1',
      'sharegpt-c2',
      'sharegpt-c4',
      'sharegpt-c8',
      'sharegpt-1000-unbounded',
      'random-32000-100',
      'random-4000-200',
      'random-2000-100',
      'random-128-4',
    ]);
    for (const w of WORKLOAD_PRESETS) expect(parseWorkload(w)).toEqual(w);
    expect(workloadPreset('random-4000-200')).toMatchObject({ numPrompts: 500, seed: 42, dataset: { kind: 'random', inputLen: 4000, outputLen: 200 } });
  });

  it("reproduces Study A's benchmark command, plus the metrics and result file every run keeps", () => {
    const argv = buildBenchServeArgv(workloadPreset('sharegpt-c4')!, target, CLIENT).join(' ');
    // reference study: vllm bench serve --model Qwen/Qwen3-8B --backend openai-chat --endpoint /v1/chat/completions
    //   --dataset-name sharegpt --dataset-path ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 100 --max-concurrency 4
    expect(argv).toBe(
      'vllm bench serve --backend openai-chat --endpoint /v1/chat/completions --host 127.0.0.1 --port 8000 --model Qwen/Qwen3-8B ' +
        '--dataset-name sharegpt --dataset-path ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 100 --max-concurrency 4 ' +
        ALWAYS,
    );
  });

  it("builds Study B's random workloads with seed 42 and no concurrency limit", () => {
    const argv = buildBenchServeArgv(workloadPreset('random-32000-100')!, target, CLIENT).join(' ');
    expect(argv).toContain('--dataset-name random --random-input-len 32000 --random-output-len 100 --num-prompts 100 --seed 42 ');
    expect(argv).not.toContain('--max-concurrency');
    expect(argv).not.toContain('--dataset-path');
  });
});

describe('buildBenchServeArgv', () => {
  it('maps every workload knob to its flag, and metadata to KEY=VALUE words', () => {
    const w = parseWorkload({
      id: 'rr',
      dataset: { kind: 'random', inputLen: 1000, outputLen: 50, rangeRatio: 0.1, prefixLen: 200 },
      numPrompts: 10,
      requestRate: 2.5,
      burstiness: 0.5,
      ignoreEos: true,
      backend: 'openai',
    });
    const argv = buildBenchServeArgv(w, { ...target, servedModelName: 'q8', host: '10.0.0.2', metadata: { trial_id: 't-1', study: 's' } }, CLIENT);
    expect(argv.join(' ')).toBe(
      'vllm bench serve --backend openai --endpoint /v1/completions --host 10.0.0.2 --port 8000 --model Qwen/Qwen3-8B --served-model-name q8 ' +
        '--dataset-name random --random-input-len 1000 --random-output-len 50 --random-range-ratio 0.1 --random-prefix-len 200 ' +
        '--num-prompts 10 --request-rate 2.5 --burstiness 0.5 --ignore-eos ' +
        `${ALWAYS} --metadata trial_id=t-1 study=s`,
    );
  });

  it('uses the workload’s own dataset file and fixed output length', () => {
    const share = buildBenchServeArgv(parseWorkload({ id: 's', dataset: { kind: 'sharegpt', path: '/data/sg.json', outputLen: 256 }, numPrompts: 5 }), target, CLIENT);
    expect(share.join(' ')).toContain('--dataset-name sharegpt --dataset-path /data/sg.json --sharegpt-output-len 256');
    const custom = buildBenchServeArgv(parseWorkload({ id: 'c', dataset: { kind: 'custom', path: '/data/p.jsonl', outputLen: 64 }, numPrompts: 5 }), target, CLIENT);
    expect(custom.join(' ')).toContain('--dataset-name custom --dataset-path /data/p.jsonl --custom-output-len 64');
  });

  it('refuses a ShareGPT workload with no file to read', () => {
    const w = parseWorkload({ id: 's', dataset: { kind: 'sharegpt' }, numPrompts: 5 });
    expect(() => buildBenchServeArgv(w, { ...target, defaultShareGptPath: undefined }, CLIENT)).toThrow(/dataset path/);
  });
});

describe('parseWorkload', () => {
  it('names each wrong field', () => {
    try {
      parseWorkload({ id: 'Bad Id', dataset: { kind: 'random', inputLen: 0, outputLen: 10, rangeRatio: 1 }, numPrompts: 1.5, backend: 'vllm' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ServelabError);
      const paths = ((error as ServelabError).issues ?? []).map((i) => i.path).sort();
      expect(paths).toEqual(['backend', 'dataset.inputLen', 'dataset.rangeRatio', 'id', 'numPrompts']);
    }
  });

  it('refuses an option-looking dataset path, which the client would read as a flag', () => {
    expect(() => parseWorkload({ id: 's', dataset: { kind: 'custom', path: '--help' }, numPrompts: 1 })).toThrow(/dataset\.path/);
  });

  it('describes a workload in one line', () => {
    expect(describeWorkload(workloadPreset('sharegpt-c4')!)).toBe('ShareGPT, 100 prompts, concurrency 4');
    expect(describeWorkload(workloadPreset('random-128-4')!)).toBe('random 128 in / 4 out, 1000 prompts, unbounded concurrency');
  });
});

describe('request-rate workloads', () => {
  const base = { id: 'w', dataset: { kind: 'sharegpt', path: '/d/sg.json' }, numPrompts: 200 } as const;
  const argvOf = (w: object, version: string) => buildBenchServeArgv(parseWorkload({ ...base, ...w }), target, version).join(' ');

  it('loads an old workload with requestRate and burstiness exactly as stored', () => {
    const old = { ...base, requestRate: 4, burstiness: 0.5, backend: 'openai-chat' };
    expect(parseWorkload(old)).toEqual(old);
    expect(argvOf({ requestRate: 4, burstiness: 0.5 }, '0.11.0')).toContain('--num-prompts 200 --request-rate 4 --burstiness 0.5 --percentile-metrics');
  });

  it('sends a constant rate as --burstiness inf, from client 0.11.1 on, and refuses it on 0.11.0 naming both versions', () => {
    expect(argvOf({ requestRate: 8, burstiness: 'inf' }, '0.11.1')).toContain('--request-rate 8 --burstiness inf --percentile-metrics');
    expect(argvOf({ requestRate: 8, burstiness: 'inf' }, '0.17.1')).toContain('--request-rate 8 --burstiness inf');
    try {
      argvOf({ requestRate: 8, burstiness: 'inf' }, '0.11.0');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ServelabError);
      expect((error as ServelabError).code).toBe('BAD_INPUT');
      expect((error as ServelabError).message).toMatch(/vllm bench serve 0\.11\.0 cannot send at a constant rate: --burstiness inf works from 0\.11\.1/);
      expect((error as ServelabError).issues).toEqual([expect.objectContaining({ path: 'workload.burstiness' })]);
    }
  });

  it('builds a ramp from the table’s --ramp-up-* flags at every tabled version, and refuses it on a client older than the tables', () => {
    const ramp = { rampUp: { strategy: 'linear', startRps: 1, endRps: 16 } };
    for (const version of ['0.11.0', '0.13.0', '0.17.1']) {
      const argv = argvOf(ramp, version);
      expect(argv).toContain('--num-prompts 200 --ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 16 --percentile-metrics');
      expect(argv).not.toContain('--request-rate');
    }
    expect(() => argvOf(ramp, '0.9.0')).toThrow(/vllm bench serve 0\.9\.0 has no --ramp-up-strategy, --ramp-up-start-rps, --ramp-up-end-rps: a ramped arrival needs benchmark client 0\.11\.0/);
    // Without a ramp an old client gets the same flags as before.
    expect(argvOf({ requestRate: 2 }, '0.9.0')).toContain('--request-rate 2');
  });

  it('refuses what the client refuses: a rate beside a ramp, a ramp down, a start of 0, a fractional rate', () => {
    const paths = (w: object) => {
      try {
        parseWorkload({ ...base, ...w });
        return [];
      } catch (error) {
        return ((error as ServelabError).issues ?? []).map((i) => i.path);
      }
    };
    expect(paths({ requestRate: 4, rampUp: { strategy: 'linear', startRps: 1, endRps: 4 } })).toEqual(['requestRate']);
    expect(paths({ rampUp: { strategy: 'linear', startRps: 8, endRps: 4 } })).toEqual(['rampUp.endRps']);
    expect(paths({ rampUp: { strategy: 'exponential', startRps: 0, endRps: 4 } })).toEqual(['rampUp.startRps']);
    expect(paths({ rampUp: { strategy: 'linear', startRps: 1.5, endRps: 4 } })).toEqual(['rampUp.startRps']);
    expect(paths({ rampUp: { strategy: 'sine', startRps: 1, endRps: 4 } })).toEqual(['rampUp.strategy']);
    expect(paths({ requestRate: 4, burstiness: 'infinite' })).toEqual(['burstiness']);
    expect(paths({ rampUp: { strategy: 'linear', startRps: 4, endRps: 4 } })).toEqual([]);
  });

  it('says the arrival kind in its one-line description', () => {
    const say = (w: object) => describeWorkload(parseWorkload({ ...base, ...w }));
    expect(say({ requestRate: 8, burstiness: 'inf' })).toBe('ShareGPT, 200 prompts, unbounded concurrency, constant 8 req/s');
    expect(say({ rampUp: { strategy: 'linear', startRps: 1, endRps: 16 } })).toBe('ShareGPT, 200 prompts, unbounded concurrency, ramp 1→16 req/s linear');
    expect(say({ requestRate: 4 })).toBe('ShareGPT, 200 prompts, unbounded concurrency, Poisson 4 req/s');
    expect(say({ requestRate: 4, burstiness: 100 })).toBe('ShareGPT, 200 prompts, unbounded concurrency, Gamma 4 req/s, burstiness 100 (gap CV 0.10)');
    expect(say({ burstiness: 3 })).toBe('ShareGPT, 200 prompts, unbounded concurrency');
  });

  it('has a constant-rate sweep of 1, 4, 8 and 16 req/s, each valid', () => {
    expect(CONSTANT_RATE_SWEEP.map((w) => [w.id, w.requestRate, w.burstiness])).toEqual([
      ['sharegpt-rate1', 1, 'inf'],
      ['sharegpt-rate4', 4, 'inf'],
      ['sharegpt-rate8', 8, 'inf'],
      ['sharegpt-rate16', 16, 'inf'],
    ]);
    for (const w of CONSTANT_RATE_SWEEP) expect(parseWorkload(w)).toEqual(w);
  });
});
