import { describe, expect, it } from 'vitest';
// The two published guides, verbatim (tests/fixtures/guides/README.md).
import latencyGuide from '../../../../tests/fixtures/guides/qwen3-8b-h100-latency.tr.txt?raw';
import throughputGuide from '../../../../tests/fixtures/guides/qwen3-32b-a100-throughput.tr.txt?raw';
import latencyExampleText from '../../../../examples/qwen3-8b-latency-h100.servelab?raw';
import throughputExampleText from '../../../../examples/qwen3-32b-throughput-a100.servelab?raw';
import { ProjectFileSchema, ReferenceTrialSchema, type Stage } from '../study';
import { studyFromGuide } from './study-from-guide';

const LATENCY = 'qwen3-8b-h100-latency.tr.txt';
const THROUGHPUT = 'qwen3-32b-a100-throughput.tr.txt';

/** Header lines of the result blocks, found with a plain search of the file (not the reader under test). */
function blockHeaderLines(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (/^=+ Serving Benchmark Result =+\s*$/.test(line.trim()) ? [i + 1] : []));
}

/** The number printed after `label:` in the block whose header is on line `header`. */
function printed(text: string, header: number, label: string): number | undefined {
  const lines = text.split('\n').slice(header, header + 30);
  const row = lines.find((l) => l.startsWith(`${label}:`));
  return row === undefined ? undefined : Number(row.slice(label.length + 1).trim());
}

/** A stage as the tests compare it: engines and each candidate's variant and config, in order. */
const shape = (s: Stage) => ({ engines: s.engines, candidates: s.candidates.map((c) => ({ variant: c.variant, config: c.config })) });

describe('the latency guide (Qwen3-8B on an H100)', () => {
  const out = studyFromGuide(latencyGuide, { fileName: LATENCY });

  it('reads its goal, box, engines and benchmark', () => {
    expect(out.study.goal.kind).toBe('latency');
    expect(out.study.demoLab).toEqual({ gpu: 'h100', count: 1 });
    expect(out.study.model.id).toBe('Qwen/Qwen3-8B');
    expect(out.study.engines.map((e) => [e.engine, e.version, e.config])).toEqual([
      ['vllm', '0.11.0', {}],
      ['sglang', '0.5.3.post3', {}],
      ['trtllm', '1.2.0rc1', {}],
    ]);
    expect(out.study.workloads.primary).toMatchObject({ dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4, backend: 'openai-chat' });
    // The "other scenarios" blocks print concurrency 1, 2, 4 and 8; 4 is the primary workload.
    expect(out.study.workloads.generalisation.map((w) => w.maxConcurrency)).toEqual([1, 2, 8]);
  });

  it('has the guide’s own stages and candidates, each a patch on what the earlier stages kept', () => {
    expect(out.study.stages.map((s) => [s.id, s.label])).toEqual([
      ['cuda-graph-max-batch-size', 'SGLang için En büyük CUDA graph toplu iş boyutu'],
      ['quantization', 'Quantization'],
      ['attention-backend', 'Dikkat arka ucu'],
      ['speculative', 'Spekülatif kod çözme'],
      ['torch-compile', 'Torch.compile'],
    ]);
    const [cuda, quant, attention, speculative, compile] = out.study.stages.map(shape);
    expect(cuda).toEqual({ engines: ['sglang'], candidates: [{ variant: undefined, config: { cudaGraphMaxBatchSize: 8 } }] });
    expect(quant).toEqual({ engines: undefined, candidates: [{ variant: 'fp8', config: {} }] });
    expect(out.study.model.variants).toEqual([{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', label: 'FP8 checkpoint (Qwen/Qwen3-8B-FP8)', precision: 'fp8' }]);
    expect(attention?.candidates.map((c) => c.config)).toEqual([{ attentionBackend: 'triton' }, { attentionBackend: 'flashinfer' }]);
    // Nine EAGLE3 points, as the stage's nine labelled blocks print them (the first is the printed command).
    expect(speculative?.candidates.map((c) => c.config.speculative)).toEqual([
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 },
      { algorithm: 'eagle3', draftModel: 'AngelSlim/Qwen3-8B_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 },
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 2, eagleTopK: 4, numDraftTokens: 16 },
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 8, eagleTopK: 4, numDraftTokens: 16 },
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 8, numDraftTokens: 16 },
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 32 },
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 8 },
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 2, eagleTopK: 1, numDraftTokens: 4 },
      { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3' },
    ]);
    expect(speculative?.candidates.every((c) => c.variant === undefined && Object.keys(c.config).length === 1)).toBe(true);
    expect(compile).toEqual({ engines: ['sglang'], candidates: [{ variant: undefined, config: { torchCompile: true } }] });
  });

  it('agrees with the hand-made example study on every stage it shares', () => {
    const example = ProjectFileSchema.parse(JSON.parse(latencyExampleText)).study;
    const ours = out.study.stages.map(shape);
    for (const stage of example.stages) {
      const mine = ours.find((s) => stage.candidates.some((c) => s.candidates.some((m) => JSON.stringify(m) === JSON.stringify({ variant: c.variant, config: c.config }))));
      expect(mine, stage.id).toBeDefined();
      // The example's reduced EAGLE3 grid has two points the guide does not print: 3 draft tokens at 2 steps / top-k 1
      // (the guide: 4), and 8 steps / top-k 8 / 32 tokens (the guide varies one of the three at a time).
      const missing = stage.candidates.filter((c) => !mine?.candidates.some((m) => JSON.stringify(m) === JSON.stringify({ variant: c.variant, config: c.config })));
      expect(missing.map((c) => c.id)).toEqual(stage.id === 'speculative' ? ['tengyunw-s2-k1-t3', 'tengyunw-s8-k8-t32'] : []);
    }
  });

  it('keeps every result block as a published reference trial with the printed numbers', () => {
    const headers = blockHeaderLines(latencyGuide);
    expect(headers).toHaveLength(25);
    expect(out.references.map((r) => r.source.line)).toEqual(headers);
    for (const ref of out.references) {
      expect(ReferenceTrialSchema.parse(ref)).toEqual(ref);
      expect(ref).toMatchObject({ kind: 'published', status: 'ok', source: { file: LATENCY, title: 'NVIDIA H100 GPU üzerinde Qwen3-8B gecikme optimizasyonu' } });
      const m = ref.result?.metrics ?? {};
      expect(m.total_token_throughput).toBe(printed(latencyGuide, ref.source.line, 'Total Token throughput (tok/s)'));
      expect(m.mean_ttft_ms).toBe(printed(latencyGuide, ref.source.line, 'Mean TTFT (ms)'));
      expect(m.p99_itl_ms).toBe(printed(latencyGuide, ref.source.line, 'P99 ITL (ms)'));
      expect(m.completed).toBe(printed(latencyGuide, ref.source.line, 'Successful requests'));
    }
    // Placed where the study tries the same configuration on the same workload.
    expect(out.references.find((r) => r.source.line === 169)).toMatchObject({ stageId: 'engine', candidateId: 'sglang-0.5.3.post3', workloadId: 'sharegpt-100-c4', engine: 'sglang' });
    expect(out.references.find((r) => r.source.line === 445)).toMatchObject({ stageId: 'attention-backend', candidateId: 'attention-backend-flashinfer' });
    expect(out.references.find((r) => r.source.line === 1350)).toMatchObject({ stageId: 'generalisation', candidateId: 'recommended', workloadId: 'sharegpt-100-c1' });
  });

  it('reports the summary gain that its own blocks do not show', () => {
    // "Spekülatif kod çözme +66.2%": the stage's best block is 0.87 s/request against FP8's 1.28 s, a 46–55% gain;
    // +25.8% (quantization) and +4.3% (engine) follow from the guide's rounded latencies and pass.
    expect(out.problems).toEqual([expect.objectContaining({ line: 1015, kind: 'wrong', message: expect.stringContaining('+66.2%') })]);
  });
});

describe('the throughput guide (Qwen3-32B on an A100)', () => {
  const out = studyFromGuide(throughputGuide, { fileName: THROUGHPUT });

  it('reads its goal, box, engines and workloads', () => {
    expect(out.study.goal.kind).toBe('throughput');
    expect(out.study.demoLab).toEqual({ gpu: 'a100', count: 1 });
    expect(out.study.model.id).toBe('Qwen/Qwen3-32B');
    expect(out.study.engines.map((e) => [e.engine, e.version, e.config])).toEqual([
      ['vllm', '0.11.0', { maxModelLen: 32768 }],
      ['sglang', '0.5.5.post1', {}],
      ['trtllm', '1.2.0rc1', {}],
    ]);
    expect(out.study.workloads.primary).toMatchObject({ dataset: { kind: 'sharegpt' }, numPrompts: 1000, backend: 'openai-chat' });
    expect(out.study.workloads.primary.maxConcurrency).toBeUndefined();
    // The random bench command (4000/200, 500 prompts, seed 42) and the three lengths the dataset section lists, each
    // with the prompt count its blocks print and the bench command's seed.
    expect(out.study.workloads.generalisation.map((w) => [w.dataset, w.numPrompts, w.seed])).toEqual([
      [{ kind: 'random', inputLen: 4000, outputLen: 200 }, 500, 42],
      [{ kind: 'random', inputLen: 32000, outputLen: 100 }, 100, 42],
      [{ kind: 'random', inputLen: 2000, outputLen: 100 }, 500, 42],
      [{ kind: 'random', inputLen: 128, outputLen: 4 }, 1000, 42],
    ]);
  });

  it('has the guide’s stages and candidates, the same as the hand-made example', () => {
    const example = ProjectFileSchema.parse(JSON.parse(throughputExampleText)).study;
    expect(out.study.stages.map(shape)).toEqual(example.stages.map(shape));
    expect(out.study.stages.map((s) => s.label)).toEqual(['TensorRT-LLM/vLLM için Quantization', 'TensorRT-LLM için Toplu işteki en fazla token sayısı']);
    expect(out.study.model.variants.map((v) => [v.id, v.model, v.precision])).toEqual([
      ['fp8', 'Qwen/Qwen3-32B-FP8', 'fp8'],
      ['awq', 'Qwen/Qwen3-32B-AWQ', 'awq'],
    ]);
  });

  it('keeps every result block, and the two failed launches, as published reference trials', () => {
    const headers = blockHeaderLines(throughputGuide);
    expect(headers).toHaveLength(15);
    const ok = out.references.filter((r) => r.status === 'ok');
    expect(ok.map((r) => r.source.line).sort((a, b) => a - b)).toEqual(headers);
    for (const ref of ok) {
      const m = ref.result?.metrics ?? {};
      expect(m.total_token_throughput).toBe(printed(throughputGuide, ref.source.line, 'Total Token throughput (tok/s)'));
      expect(m.mean_tpot_ms).toBe(printed(throughputGuide, ref.source.line, 'Mean TPOT (ms)'));
      expect(m.max_concurrency).toBeNull();
    }
    expect(out.references.filter((r) => r.status === 'failed').map((r) => [r.source.line, r.candidateId, r.engine, r.error])).toEqual([
      [182, 'fp8', 'trtllm', 'RuntimeError: Unsupported SM version for FP8 block scaling GEMM'],
      [192, 'awq', 'trtllm', "KeyError: 'weight'"],
    ]);
    expect(out.references.find((r) => r.source.line === 146)).toMatchObject({ stageId: 'engine', candidateId: 'trtllm-1.2.0rc1', result: { metrics: { total_token_throughput: 2054.21 } } });
    expect(out.references.find((r) => r.source.line === 440)).toMatchObject({ stageId: 'generalisation', candidateId: 'recommended', workloadId: 'random-32000-100-100-unbounded', result: { metrics: { total_token_throughput: 1580.36 } } });
  });

  it('reports the stage-3 command that serves Qwen3-14B, and the quantization commands that drop vLLM’s max model length', () => {
    expect(out.problems.filter((p) => p.kind === 'wrong')).toEqual([
      { line: 262, kind: 'wrong', message: expect.stringContaining('serves Qwen/Qwen3-14B, not the page\'s model Qwen/Qwen3-32B') },
    ]);
    expect(out.problems.filter((p) => p.kind === 'unmapped').map((p) => p.line)).toEqual([198, 230]);
  });
});

// Hand-written edge cases (marked as such): a Markdown guide in English, and the same guide as HTML. They exercise
// what the two published guides do not have: fenced code, English section names, a two-GPU server command on a
// one-GPU box, unquoted JSON, a summary number no block shows.
const BLOCK = (throughput: string) =>
  [
    '============ Serving Benchmark Result ============',
    'Successful requests:                     200',
    'Maximum request concurrency:             8',
    'Benchmark duration (s):                  50.00',
    'Total input tokens:                      40000',
    'Total generated tokens:                  40000',
    `Total Token throughput (tok/s):          ${throughput}`,
    '---------------Time to First Token----------------',
    'Mean TTFT (ms):                          40.00',
    '-----Time per Output Token (excl. 1st token)------',
    'Mean TPOT (ms):                          8.00',
    '==================================================',
  ].join('\n');

const MARKDOWN = [
  '# Llama throughput on one H200',
  '## Optimization goal',
  'Highest throughput at concurrency 8.',
  '## Hardware',
  'Single NVIDIA H200 GPU.',
  '## Engine versions',
  '- vLLM: v0.11.0',
  '- SGLang: v0.5.5.post1',
  '## Benchmark script',
  '```bash',
  'vllm bench serve --model Qwen/Qwen3-8B --backend openai-chat --endpoint /v1/chat/completions --dataset-name random --random-input-len 200 --random-output-len 200 --num-prompts 200 --max-concurrency 8 --seed 7',
  '```',
  '## 1. Engine selection',
  '```',
  'vllm serve Qwen/Qwen3-8B',
  BLOCK('1600.00'),
  'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B',
  BLOCK('1700.00'),
  '```',
  '## 2. Tensor parallelism',
  '```',
  'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2 --json-model-override-args {"rope_scaling": null}',
  BLOCK('2100.00'),
  '```',
  '## Summary',
  '| Option | Gain |',
  '| --- | --- |',
  '| Engine selection | +6.3% |',
  '| Tensor parallelism | +40.0% |',
].join('\n');

function markdownToHtml(md: string): string {
  let inCode = false;
  return md
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) {
        inCode = !inCode;
        return inCode ? '<pre><code>' : '</code></pre>';
      }
      if (inCode) return line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
      const h = /^(#+) (.*)$/.exec(line);
      if (h) return `<h${h[1]?.length}>${h[2]}</h${h[1]?.length}>`;
      if (line.startsWith('| ---')) return '';
      if (line.startsWith('|')) return `<tr><td>${line.slice(1, -1).split('|').map((c) => c.trim()).join('</td><td>')}</td></tr>`;
      return `<p>${line.replace(/^- /, '')}</p>`;
    })
    .join('\n');
}

describe.each([
  ['guide.md', MARKDOWN],
  ['guide.html', `<html><body>\n${markdownToHtml(MARKDOWN)}\n</body></html>`],
])('an English guide in %s (hand-written edge case)', (fileName, text) => {
  const out = studyFromGuide(text, { fileName });

  it('reads goal, box, engines, workload and stages from English section names', () => {
    expect(out.study.goal.kind).toBe('throughput');
    expect(out.study.demoLab).toEqual({ gpu: 'h200', count: 1 });
    expect(out.study.engines.map((e) => `${e.engine} ${e.version}`)).toEqual(['vllm 0.11.0', 'sglang 0.5.5.post1']);
    expect(out.study.workloads.primary).toMatchObject({ dataset: { kind: 'random', inputLen: 200, outputLen: 200 }, numPrompts: 200, maxConcurrency: 8, seed: 7 });
    expect(out.study.stages.map((s) => [s.label, s.candidates.map((c) => c.config)])).toEqual([
      ['Tensor parallelism', [{ tensorParallelSize: 2, extraArgs: ['--json-model-override-args', '{rope_scaling:', 'null}'] }]],
    ]);
    expect(out.references.map((r) => [r.stageId, r.result?.metrics.total_token_throughput])).toEqual([
      ['engine', 1600],
      ['engine', 1700],
      ['tensor-parallel-size-extra-args', 2100],
    ]);
  });

  it('reports the unquoted JSON, the two GPUs on a one-GPU box and the gain no block shows', () => {
    const wrong = out.problems.filter((p) => p.kind === 'wrong').map((p) => p.message);
    expect(wrong).toEqual([
      expect.stringContaining('the JSON {"rope_scaling": null} is not quoted'),
      expect.stringContaining('spreads the model over 2 GPUs, but the page\'s box has 1'),
      expect.stringMatching(/states \+40\.0% for "Tensor parallelism", but that stage's result blocks show \+23\.5%/),
    ]);
  });
});
