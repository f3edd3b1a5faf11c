// Every log in tests/fixtures/engine-logs/ is classified as the JSON beside it says.
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { classifyLog, ENGINE_ADAPTERS, LOG_CLASSES, type EngineId } from '../../src/shared/engines';
import { loadLogCorpus } from './log-corpus';

const corpus = loadLogCorpus();

describe('engine log corpus', () => {
  it('has a log and an expectation for each case, for every class, and most classes for every engine', () => {
    const dir = join(import.meta.dirname, '../fixtures/engine-logs');
    const files = readdirSync(dir);
    for (const f of files.filter((f) => f.endsWith('.log'))) expect(files, f).toContain(f.replace(/\.log$/, '.json'));
    expect(new Set(corpus.map((c) => c.expect.class))).toEqual(new Set(LOG_CLASSES));
    for (const engine of ['vllm', 'sglang', 'trtllm'] as const) {
      const classes = new Set(corpus.filter((c) => (c.expect.engine ?? c.expect.detectedEngine) === engine).map((c) => c.expect.class));
      // FP8 block-scaled GEMM is TensorRT-LLM's; the KV-cache estimate is vLLM's. Logs still starting and failures of
      // unknown cause are the real corpus's to cover per engine (tests/fixtures/engine-log-corpus).
      const expected = LOG_CLASSES.filter((k) => k !== 'starting' && k !== 'unknown' && !(k === 'unsupported-sm-fp8' && engine !== 'trtllm') && !(k === 'kv-cache-too-small' && engine !== 'vllm'));
      expect([...classes].sort(), engine).toEqual(expect.arrayContaining(expected.filter((k) => k !== 'gated-model' || engine !== 'trtllm')));
    }
  });

  it.each(corpus.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const verdict = c.expect.engine ? classifyLog(c.text, { engine: c.expect.engine }) : classifyLog(c.text);
    expect(verdict.class).toBe(c.expect.class);
    expect(verdict.line).toBe(c.expect.line);
    expect(verdict.evidence).toContain(c.expect.evidence);
    // Evidence is the engine's own text: no ANSI codes, no Ray/docker/k8s/logger prefixes.
    expect(verdict.evidence).not.toContain('\u001b');
    expect(verdict.evidence).not.toMatch(/^\(|^\d{4}-\d{2}-\d{2}T|^\[\d/);
    for (const part of c.expect.hint) expect(verdict.hint).toContain(part);
    if (c.expect.detectedEngine) expect(verdict.engine).toBe(c.expect.detectedEngine);
    // The evidence is on the line the verdict names.
    if (verdict.line !== null) expect(c.text.split(/\r?\n/)[verdict.line - 1]).toContain(verdict.evidence.replace(/…$/, '').slice(0, 60));
  });

  it('gives the same verdict through the adapters as through the shared classifier with the engine hint', () => {
    for (const c of corpus.filter((c) => c.expect.engine)) {
      const engine = c.expect.engine as EngineId;
      expect(ENGINE_ADAPTERS[engine].classifyLog(c.text)).toEqual(classifyLog(c.text, { engine }));
    }
  });
});
