// `servelab engine flags`: a release's flags as its own parser defines them, printed from the generated tables.
import { describe, expect, it } from 'vitest';
import { runEngine } from '../../src/cli/commands/engine';
import { printedFlags } from '../../src/shared/engines/flag-tables';
import { runCaptured } from '../helpers/cli';

const run = (args: string[]) => runCaptured((io) => runEngine(args, io), {}, process.cwd());

describe('servelab engine flags', () => {
  it('prints a release’s flags as JSON: names with aliases first-named, arity, and choices where the parser has them', async () => {
    const out = await run(['flags', 'vllm', '0.11.0', '--json']);
    expect(out.code).toBe(0);
    const flags = JSON.parse(out.stdout) as { names: string[]; arity: string; choices?: string[] }[];
    expect(flags).toEqual(printedFlags('vllm', '0.11.0'));
    expect(flags.find((f) => f.names.includes('-tp'))).toEqual({ names: ['--tensor-parallel-size', '-tp'], arity: 'one' });
    for (const f of flags) expect(Object.keys(f).every((k) => ['names', 'arity', 'choices', 'count'].includes(k))).toBe(true);
  });

  it('has a table for vllm bench serve, SGLang and trtllm-serve too', async () => {
    expect(JSON.parse((await run(['flags', 'vllm-bench', '0.11.0', '--json'])).stdout).some((f: { names: string[] }) => f.names.includes('--percentile-metrics'))).toBe(true);
    expect((await run(['flags', 'sglang', '0.5.5.post1'])).stdout).toMatch(/^sglang\.launch_server 0\.5\.5\.post1: \d+ flags, read at 303cc957e623 \(tag v0\.5\.5\.post1\)\n/);
    expect((await run(['flags', 'trtllm', '1.2.0rc1'])).stdout).toMatch(/not the release tag itself/);
  });

  it('refuses a release it has no table for, naming those it has, and bad arguments', async () => {
    const missing = await run(['flags', 'vllm', '0.10.0']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/vllm serve 0\.10\.0 has no flag table; tabled releases: 0\.11\.0, 0\.11\.1/);
    expect((await run(['flags', 'tgi', '1.0'])).code).toBe(2);
    expect((await run(['flags', 'vllm'])).code).toBe(2);
  });
});
