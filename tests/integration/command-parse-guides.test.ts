// Every server command the two reference guides print (tests/fixtures/guides, copied verbatim from the published
// guides) parses at the version the guide names, refuses nothing, and builds back to a command the engine's parser
// reads the same way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandOfParsed, parseServeCommand, type ParsedServeCommand } from '../../src/shared/engines/command-parse';
import type { EngineId } from '../../src/shared/engines/types';
import { repoRoot } from '../helpers/repo';

const GUIDES_DIR = join(repoRoot, 'tests', 'fixtures', 'guides');

function parsed(text: string, options: { engineVersion?: string } = {}): ParsedServeCommand {
  const result = parseServeCommand(text, options);
  if ('error' in result) throw new Error(result.error);
  return result;
}

function roundTrip(text: string, options: { engineVersion?: string } = {}): { first: ParsedServeCommand; printed: string } {
  const first = parsed(text, options);
  const printed = commandOfParsed(first);
  const again = parsed(printed, { engineVersion: first.version });
  expect(again.canonical).toEqual(first.canonical);
  expect(again.config).toEqual(first.config);
  return { first, printed };
}

const PROGRAM = /^(vllm serve|python3 -m sglang\.launch_server|trtllm-serve)\b/;

/** Every server command a guide prints: one-liners (bare or in backticks after a table row number) and `\` continued blocks. */
function guideCommands(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const quoted = /`([^`]+)`/.exec(line)?.[1];
    if (quoted !== undefined && PROGRAM.test(quoted)) {
      out.push(quoted);
      continue;
    }
    if (!PROGRAM.test(line)) continue;
    let command = line;
    while (command.trimEnd().endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]}`;
    out.push(command);
  }
  return out;
}

/** The engine versions a guide names ("vLLM: v0.11.0"). */
function guideVersions(text: string): Record<EngineId, string> {
  const version = (name: string) => {
    const m = new RegExp(`^[\\s•]*${name}: v(\\S+)$`, 'm').exec(text);
    if (!m) throw new Error(`the guide names no ${name} version`);
    return m[1] as string;
  };
  return { vllm: version('vLLM'), sglang: version('SGLang'), trtllm: version('TensorRT-LLM') };
}

describe('the reference guides’ server commands', () => {
  const guides = [
    { file: 'qwen3-8b-h100-latency.tr.txt', count: 11 },
    { file: 'qwen3-32b-a100-throughput.tr.txt', count: 11 },
  ];
  for (const { file, count } of guides) {
    it(`${file}: each command parses at the guide's version, refuses nothing and builds back to the same command`, () => {
      const text = readFileSync(join(GUIDES_DIR, file), 'utf8');
      const versions = guideVersions(text);
      const commands = guideCommands(text);
      expect(commands).toHaveLength(count);
      for (const command of commands) {
        const engine: EngineId = command.startsWith('vllm') ? 'vllm' : command.startsWith('trtllm') ? 'trtllm' : 'sglang';
        const { first } = roundTrip(command, { engineVersion: versions[engine] });
        expect(first.engine).toBe(engine);
        expect(first.versionFrom).toBe('option');
        expect(first.refused).toEqual([]);
        expect(first.warnings).toEqual([]);
        // Everything the guides set is a typed knob: nothing is left verbatim.
        expect(first.config.extraArgs).toEqual([]);
      }
    });
  }

  it('reads the multi-line EAGLE3 command into typed speculative settings, --model as SGLang’s alias of --model-path', () => {
    const text = readFileSync(join(GUIDES_DIR, 'qwen3-8b-h100-latency.tr.txt'), 'utf8');
    const recommended = guideCommands(text)[0] as string;
    expect(recommended).toContain('\\\n');
    const { first, printed } = roundTrip(recommended, { engineVersion: '0.5.3.post3' });
    expect(first.config).toEqual({
      model: 'Qwen/Qwen3-8B-FP8',
      speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 },
      extraArgs: [],
      env: {},
    });
    expect(printed).toBe(
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
    );
  });

  it('reads the recommended TensorRT-LLM command, --x=v as click reads it', () => {
    const { first, printed } = roundTrip('trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill', { engineVersion: '1.2.0rc1' });
    expect(first.config).toMatchObject({ model: 'Qwen/Qwen3-32B', maxModelLen: 40960, chunkedPrefill: true });
    expect(printed).toBe('trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill');
  });
});

