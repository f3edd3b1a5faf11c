// Every server command the two reference guides print (tests/fixtures/guides, copied verbatim from the published
// guides) parses at the version the guide names, refuses nothing, and builds back to a command the engine's parser
// reads the same way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/shared/engines/adapters';
import { joinArgs } from '../../src/shared/engines/argv-text';
import { commandOfParsed, parseServeCommand, type ParsedServeCommand } from '../../src/shared/engines/command-parse';
import { groupArgs, type Group } from '../../src/shared/engines/command-parse-args';
import { engineCall } from '../../src/shared/engines/command-parse-call';
import { parseShell } from '../../src/shared/engines/command-parse-shell';
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

/** The program words and the flag groups (each flag with its values) of a one-command snippet, as the engine's parser groups them. */
function split(command: string, engine: EngineId, version: string): { program: string[]; model: Group[]; flags: Group[] } {
  const shell = parseShell(command);
  if ('error' in shell) throw new Error(shell.error);
  const words = shell.commands[0]!.words;
  const call = engineCall(words);
  if (!call) throw new Error(`no server command in ${command}`);
  const groups = groupArgs(getAdapter(engine).flagTable(version), call.args);
  const isModel = (g: Group) => !g.flag || g.flag.name === '--model-path' || g.flag.name === '--model';
  return { program: words.slice(0, words.length - call.args.length).map((w) => w.text), model: groups.filter(isModel), flags: groups.filter((g) => !isModel(g)) };
}

const text = (g: Group) => g.words.map((w) => w.text);

describe('spellings the engine’s parser reads alike read alike (properties over the guides’ commands)', () => {
  const all = ['qwen3-8b-h100-latency.tr.txt', 'qwen3-32b-a100-throughput.tr.txt'].flatMap((file) => {
    const guide = readFileSync(join(GUIDES_DIR, file), 'utf8');
    const versions = guideVersions(guide);
    return guideCommands(guide).map((command) => {
      const engine: EngineId = command.startsWith('vllm') ? 'vllm' : command.startsWith('trtllm') ? 'trtllm' : 'sglang';
      return { command, engine, version: versions[engine] };
    });
  });
  /** Every variant must give the original's typed configuration and canonical reading, with nothing refused. */
  const sameAs = (base: ParsedServeCommand, variant: string, version: string) => {
    const again = parsed(variant, { engineVersion: version });
    expect(again.config, variant).toEqual(base.config);
    expect(again.canonical, variant).toEqual(base.canonical);
    expect(again.refused, variant).toEqual([]);
  };

  it('in any order of its flags: every rotation and the reverse', () => {
    let checked = 0;
    for (const { command, engine, version } of all) {
      const base = parsed(command, { engineVersion: version });
      const { program, model, flags } = split(command, engine, version);
      const orders = [[...flags].reverse(), ...flags.map((_, k) => [...flags.slice(k), ...flags.slice(0, k)])];
      for (const order of orders) {
        // The model after the flags too: argparse takes a positional anywhere.
        sameAs(base, joinArgs([...program, ...model.flatMap(text), ...order.flatMap(text)]), version);
        sameAs(base, joinArgs([...program, ...order.flatMap(text), ...model.flatMap(text)]), version);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(all.length * 2);
  });

  it('with --x=v for --x v, one flag per `\\` line, and the GPUs chosen in front', () => {
    for (const { command, engine, version } of all) {
      const base = parsed(command, { engineVersion: version });
      const { program, model, flags } = split(command, engine, version);
      const attached = flags.map((g) => (g.words.length === 2 && g.flag?.attached === undefined ? [`${g.words[0]!.text}=${g.words[1]!.text}`] : text(g)));
      sameAs(base, joinArgs([...program, ...model.flatMap(text), ...attached.flat()]), version);
      sameAs(base, [joinArgs([...program, ...model.flatMap(text)]), ...flags.map((g) => `  ${joinArgs(text(g))}`)].join(' \\\n'), version);
      const pinned = parsed(`CUDA_VISIBLE_DEVICES=0,1 ${command}`, { engineVersion: version });
      expect(pinned.config).toEqual(base.config);
    }
  });

  it('with vLLM’s _ for - in long names (FlexibleArgumentParser), which click and SGLang’s argparse do not read alike', () => {
    const vllm = all.filter((c) => c.engine === 'vllm');
    expect(vllm.length).toBeGreaterThan(0);
    for (const { command, engine, version } of vllm) {
      const base = parsed(command, { engineVersion: version });
      const { program, model, flags } = split(command, engine, version);
      const underscored = flags.map((g) => text(g).map((w, k) => (k === 0 ? `--${w.slice(2).replace(/-/g, '_')}` : w)));
      sameAs(base, joinArgs([...program, ...model.flatMap(text), ...underscored.flat()]), version);
    }
  });
});
