import { describe, expect, it } from 'vitest';
import { ServelabError } from '../contract/errors';
import { displayCommand } from '../study/command-display';
import { renderCsv, renderHtml, renderMarkdown } from '../study/report';
import { studyBProject } from '../../../tests/helpers/study-projects';
import { validateExtraArgs } from './adapters';
import { CREDENTIAL_FLAGS, credentialWordIndexes, looksLikeToken, redactCredentialArgs } from './credentials';
import { isSecretEnvName, parseServerConfig, refusedEnvName } from './server-config';

const HF = 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const SK = 'sk-live-0123456789abcdefghijklmnop';

const errors = (engine: 'vllm' | 'sglang' | 'trtllm', version: string, args: string[]) =>
  validateExtraArgs(engine, version, args).issues.filter((i) => i.severity === 'error').map((i) => i.message);

describe('credential flags', () => {
  it('are listed once, from the generated flag tables: every value-taking token/api-key/password flag', () => {
    expect([...CREDENTIAL_FLAGS].sort()).toEqual(['admin-api-key', 'api-key', 'hf-token', 'ssl-keyfile-password']);
  });

  it('are refused in extra args, naming the flag and the keychain way to give it', () => {
    const check = validateExtraArgs('vllm', '0.11.0', ['--hf-token', HF]);
    expect(check.ok).toBe(false);
    expect(errors('vllm', '0.11.0', ['--hf-token', HF])[0]).toMatch(/^--hf-token would put a credential on the box's process list.*HF_TOKEN to \{"secretRef"/);
    expect(errors('vllm', '0.11.0', ['--api-key', 'k1', 'k2'])[0]).toMatch(/^--api-key .*VLLM_API_KEY to \{"secretRef"/);
    // Every spelling the parser reads as the same flag: `=`, underscores, an abbreviation.
    for (const args of [[`--hf-token=${HF}`], ['--hf_token', 'x'], ['--hf-tok', 'x']]) expect(errors('vllm', '0.11.0', args), args.join(' ')).toHaveLength(1);
    expect(errors('sglang', '0.5.3.post3', ['--api-key', 'k'])[0]).toMatch(/^--api-key .*reads it only from its command line/);
    expect(errors('sglang', '0.5.10', ['--ssl-keyfile-password', 'p'])[0]).toMatch(/^--ssl-keyfile-password /);
    // vLLM's bare --hf-token uses the login stored on the box: no credential on the command line.
    expect(validateExtraArgs('vllm', '0.11.0', ['--hf-token']).ok).toBe(true);
    expect(validateExtraArgs('vllm', '0.11.0', ['--hf-token', '--enable-prefix-caching']).ok).toBe(true);
  });

  it('are refused by the config schema too, so no caller (wizard, launch, CLI, study runner, project file) takes one', () => {
    expect(() => parseServerConfig({ model: 'Qwen/Qwen3-8B', extraArgs: ['--hf-token', HF] })).toThrow(ServelabError);
    const refused = (() => {
      try {
        parseServerConfig({ model: 'Qwen/Qwen3-8B', extraArgs: ['--seed', '1', '--api-key', SK] });
      } catch (e) {
        return e as ServelabError;
      }
      return undefined;
    })();
    expect(refused?.issues).toEqual([{ path: 'extraArgs.2', message: expect.stringMatching(/^--api-key would put a credential.*for vLLM, store the key/) }]);
    expect(() => parseServerConfig({ model: 'Qwen/Qwen3-8B', extraArgs: ['--tokenizer', HF] })).toThrow(/looks like a token/);
    expect(parseServerConfig({ model: 'Qwen/Qwen3-8B', extraArgs: ['--hf-token', '--seed', '1'] }).extraArgs).toEqual(['--hf-token', '--seed', '1']);
  });

  it('are redacted in every command shown: separate and attached values, several values, token-shaped words', () => {
    expect(redactCredentialArgs(['vllm', 'serve', 'm', '--hf-token', HF, '--api-key', 'a', 'b', '--seed', '1', `--api_key=${SK}`, '--tokenizer', HF])).toEqual([
      'vllm', 'serve', 'm', '--hf-token', '<redacted>', '--api-key', '<redacted>', '<redacted>', '--seed', '1', '--api_key=<redacted>', '--tokenizer', '<redacted>',
    ]);
    expect(credentialWordIndexes(['--hf-token', '--seed', '1'])).toEqual([]);
    expect(credentialWordIndexes(['--allow-credentials', '--max-num-batched-tokens', '8192'])).toEqual([]);
    const shown = displayCommand(['vllm', 'serve', 'Qwen/Qwen3-8B', '--hf-token', HF, '--api-key', SK]);
    expect(shown).toBe("vllm serve Qwen/Qwen3-8B --hf-token '<redacted>' --api-key '<redacted>'");
  });

  it('never reach a CSV, Markdown or HTML report, even from a project written before they were refused', () => {
    const project = studyBProject();
    const vllm = project.study.engines.find((e) => e.engine === 'vllm');
    if (!vllm) throw new Error('no vLLM engine');
    vllm.config = { ...vllm.config, extraArgs: ['--hf-token', HF, '--api-key', SK] };
    for (const trial of project.state.trials.filter((t) => t.engine === 'vllm')) {
      trial.config = { ...trial.config, extraArgs: ['--hf-token', HF, '--api-key', SK] };
      trial.command = `${trial.command} --hf-token ${HF} --api-key ${SK}`;
    }
    expect(JSON.stringify(project)).toContain(HF);
    for (const [format, text] of Object.entries({ csv: renderCsv(project), md: renderMarkdown(project), html: renderHtml(project) })) {
      expect(text, format).not.toContain(HF);
      expect(text, format).not.toContain(SK);
      expect(text, format).toContain('--hf-token');
    }
  });
});

describe('secret env', () => {
  it('takes *_KEY, *_AUTH and *_PAT names for credentials', () => {
    for (const name of ['HF_TOKEN', 'OPENAI_KEY', 'WANDB_API_KEY', 'PROXY_AUTH', 'GH_PAT', 'GITHUB_PAT', 'AWS_SECRET_ACCESS_KEY']) expect(isSecretEnvName(name), name).toBe(true);
    for (const name of ['TLLM_LOG_LEVEL', 'CUDA_VISIBLE_DEVICES', 'VLLM_ATTENTION_BACKEND', 'KEYS_PER_SHARD', 'PATH_PREFIX']) expect(isSecretEnvName(name), name).toBe(false);
  });

  it('refuses a token-shaped plain value under any name, pointing at the keychain', () => {
    for (const value of [HF, SK, 'ghp_0123456789abcdefghijABCDEFGHIJ012345', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz']) {
      expect(looksLikeToken(value), value).toBe(true);
      expect(() => parseServerConfig({ model: 'm', env: { MY_VAR: value } }), value).toThrow(/looks like a token.*secretRef/);
    }
    for (const value of ['hf_transfer', 'sk-1', 'Qwen/Qwen3-8B', '1']) expect(looksLikeToken(value), value).toBe(false);
  });
});

describe('loader env', () => {
  it('refuses the variables that change which code runs, and takes the engine tuning ones', () => {
    for (const name of ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'PATH', 'BASH_ENV', 'ENV', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME']) {
      expect(refusedEnvName(name), name).toBeDefined();
      expect(() => parseServerConfig({ model: 'm', env: { [name]: '/tmp/x' } }), name).toThrow(new RegExp(name));
    }
    for (const name of ['VLLM_ATTENTION_BACKEND', 'TLLM_LOG_LEVEL', 'NCCL_DEBUG', 'CUDA_DEVICE_MAX_CONNECTIONS', 'PYTHONUNBUFFERED']) expect(refusedEnvName(name), name).toBeUndefined();
  });
});
