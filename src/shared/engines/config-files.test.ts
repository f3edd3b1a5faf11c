import { describe, expect, it } from 'vitest';
import { sha256Hex, utf8Length } from '../sha256';
import type { ServelabError } from '../contract/errors';
import { ENGINE_ADAPTERS } from './adapters';
import { boxFilePath, ConfigFileSchema, configFileOf, pinFileRefs, type ConfigFile } from './config-files';
import { parseServerConfig, type ServerConfigInput } from './server-config';
import type { BuildOptions, EngineId } from './types';
import { displayCommand } from '../study/command-display';

const sha = (text: string) => sha256Hex(text);
const file = (name: string, content: string): ConfigFile => configFileOf(name, content) as ConfigFile;
const template = file('tool-chat.jinja', "{% for m in messages %}{{ m['content'] }}{% endfor %}\n");
const build = (engine: EngineId, config: ServerConfigInput, version: string, options: BuildOptions = {}) => ENGINE_ADAPTERS[engine].buildArgv(parseServerConfig(config), version, options);
const boxPath = (f: ConfigFile) => boxFilePath(f);

describe('a config file as the project keeps it', () => {
  it('carries the SHA-256 and size of its UTF-8 bytes, as sha256sum and wc -c read it on the box', () => {
    const text = 'Türkçe şablon {{ x }}\r\n';
    expect(configFileOf('tr.jinja', text)).toEqual({ name: 'tr.jinja', content: text, size: utf8Length(text), sha256: sha(text) });
    expect(ConfigFileSchema.safeParse(file('tr.jinja', text)).success).toBe(true);
  });

  it('names the field that does not match its content', () => {
    const issues = (value: unknown) => (ConfigFileSchema.safeParse(value).error?.issues ?? []).map((i) => [i.path.join('.'), i.message]);
    expect(issues({ ...template, sha256: sha('other') })).toEqual([['sha256', `does not match the content of tool-chat.jinja (its SHA-256 is ${template.sha256})`]]);
    expect(issues({ ...template, size: 3 })).toEqual([['size', `is 3, but the content of tool-chat.jinja is ${template.size} bytes`]]);
    expect(issues({ ...template, name: '../etc/passwd' })[0]?.[0]).toBe('name');
    expect(issues({ ...template, content: 'a\0b' })[0]).toEqual(['content', 'must be text (it holds a NUL byte)']);
  });

  it('refuses a file over 1 MiB with an error naming it', () => {
    const big = 'é'.repeat(600 * 1024); // 1.2 MiB as UTF-8
    expect(configFileOf('big.jinja', big)).toEqual({ error: 'big.jinja is 1.2 MiB; a config file may be at most 1 MiB (templates and option files are small text files)' });
    const issues = ConfigFileSchema.safeParse({ name: 'big.jinja', content: big, size: 0, sha256: sha(big) }).error?.issues ?? [];
    expect(issues.map((i) => [i.path.join('.'), i.message])).toEqual([['content', 'big.jinja is 1.2 MiB; a config file may be at most 1 MiB (templates and option files are small text files)']]);
    expect(configFileOf('x y.jinja', 'a')).toEqual({ error: 'the file name "x y.jinja" may only hold letters, digits and . _ + - (starting with a letter or digit)' });
  });

  it('is named by reference in a server config, each wrong field named', () => {
    expect(parseServerConfig({ model: 'm', chatTemplate: { file: 'tool-chat.jinja' } }).chatTemplate).toEqual({ file: 'tool-chat.jinja' });
    try {
      parseServerConfig({ model: 'm', chatTemplate: { file: 'a/b.jinja' }, optionsFile: { file: 'x.yaml', sha256: 'abc' } });
      throw new Error('expected a refusal');
    } catch (error) {
      expect((error as ServelabError).issues?.map((i) => i.path)).toEqual(['chatTemplate.file', 'optionsFile.sha256']);
    }
  });

  it('is pinned to the checksum of the study file of that name', () => {
    const config = parseServerConfig({ model: 'm', chatTemplate: { file: 'tool-chat.jinja' }, optionsFile: { file: 'absent.yaml' } });
    expect(pinFileRefs(config, [template])).toMatchObject({ chatTemplate: { file: 'tool-chat.jinja', sha256: template.sha256 }, optionsFile: { file: 'absent.yaml' } });
  });
});

describe('the flags each engine writes for the files a config names', () => {
  it('vLLM: --chat-template and --config, at the box path the launch resolves', () => {
    const options = file('opts.yaml', 'max-num-seqs: 64\n');
    const config = { model: 'm', maxModelLen: 4096, chatTemplate: { file: template.name, sha256: template.sha256 }, optionsFile: { file: options.name, sha256: options.sha256 }, extraArgs: ['--seed', '1'] };
    const shown = build('vllm', config, '0.11.0');
    expect(shown.argv).toEqual(['vllm', 'serve', 'm', '--max-model-len', '4096', '--chat-template', boxPath(template), '--config', boxPath(options), '--seed', '1']);
    expect(shown.unsupported).toEqual([]);
    // The command shown to people keeps `~` where the shell expands it.
    expect(displayCommand(shown.argv)).toBe(`vllm serve m --max-model-len 4096 --chat-template ~/.servelab/files/${template.sha256}/tool-chat.jinja --config ~/.servelab/files/${options.sha256}/opts.yaml --seed 1`);
    const launched = build('vllm', config, '0.17.1', { filePath: (ref) => `/home/u/.servelab/files/${ref.sha256}/${ref.file}` });
    expect(launched.argv).toContain(`/home/u/.servelab/files/${template.sha256}/tool-chat.jinja`);
  });

  it('warns when the extra arguments name --chat-template again', () => {
    const built = build('vllm', { model: 'm', chatTemplate: { file: 'a.jinja' }, extraArgs: ['--chat-template', '/x.jinja'] }, '0.11.0');
    expect(built.warnings).toEqual(["--chat-template is set by the typed config and again in extra args; vLLM keeps the last one (the extra args')"]);
  });

  it('SGLang: --chat-template for a .jinja file, --config from the release whose parser has it', () => {
    const options = file('opts.yaml', 'max-running-requests: 64\n');
    const config = { model: 'm', chatTemplate: { file: template.name, sha256: template.sha256 }, optionsFile: { file: options.name, sha256: options.sha256 } };
    expect(build('sglang', config, '0.5.5.post1').argv).toEqual(['python3', '-m', 'sglang.launch_server', '--model-path', 'm', '--chat-template', boxPath(template), '--config', boxPath(options)]);
    // resources/engine-flags/sglang.json: --config first appears in 0.5.3.
    const older = build('sglang', config, '0.5.2');
    expect(older.argv).toEqual(['python3', '-m', 'sglang.launch_server', '--model-path', 'm', '--chat-template', boxPath(template)]);
    expect(older.unsupported).toEqual([{ knob: 'optionsFile', reason: 'SGLang 0.5.2 has no --config (its parser does not define it)', file: 'opts.yaml' }]);
    const txt = build('sglang', { model: 'm', chatTemplate: { file: 'tmpl.txt' } }, '0.5.5.post1');
    expect(txt.unsupported.map((u) => u.knob)).toEqual(['chatTemplate']);
  });

  it('TensorRT-LLM: no chat template; the options file passed as it is when no typed option goes into it', () => {
    const options = file('extra.yaml', 'enable_iter_perf_stats: true\n');
    const built = build('trtllm', { model: 'm', tensorParallelSize: 2, chatTemplate: { file: 'a.jinja' }, optionsFile: { file: options.name, sha256: options.sha256 } }, '1.2.0rc1');
    expect(built.argv).toEqual(['trtllm-serve', 'm', '--tp_size=2', '--extra_llm_api_options', boxPath(options)]);
    expect(built.extraFiles).toBeUndefined();
    expect(built.unsupported.map((u) => u.knob)).toEqual(['chatTemplate']);
  });

  it('TensorRT-LLM: the typed options are written into a copy of the user\'s file, the typed value winning, nothing of the file lost', () => {
    const options = file('extra.yaml', 'kv_cache_config:\n  enable_block_reuse: false\n  dtype: auto\ntorch_compile_config:\n  enable_fullgraph: true\nenable_iter_perf_stats: true\n');
    const built = build(
      'trtllm',
      { model: 'm', gpuMemoryFraction: 0.8, kvCacheDtype: 'fp8', torchCompile: true, cudaGraphMaxBatchSize: 64, optionsFile: { file: options.name, sha256: options.sha256 } },
      '1.2.0rc1',
      { filesDir: '/srv/s1', fileText: (ref) => (ref.file === options.name ? options.content : undefined) },
    );
    // The file holds kv_cache_config, which replaces the flag's section: the memory fraction moves into the YAML.
    expect(built.argv).toEqual(['trtllm-serve', 'm', '--extra_llm_api_options=/srv/s1/extra_llm_api_options.yaml']);
    expect(built.extraFiles).toEqual([
      {
        path: '/srv/s1/extra_llm_api_options.yaml',
        content:
          'kv_cache_config:\n  enable_block_reuse: false\n  dtype: "fp8"\n  free_gpu_memory_fraction: 0.8\ntorch_compile_config:\n  enable_fullgraph: true\nenable_iter_perf_stats: true\ncuda_graph_config:\n  max_batch_size: 64\n',
      },
    ]);
    expect(built.warnings).toEqual(['extra.yaml sets kv_cache_config.dtype to "auto"; the typed setting writes "fp8" there instead']);
    expect(built.unsupported).toEqual([]);
  });

  it('TensorRT-LLM: typed options that cannot be merged into an unreadable options file are reported, not dropped silently', () => {
    const options = file('extra.yaml', 'a: &anchor 1\n');
    const built = build('trtllm', { model: 'm', kvCacheDtype: 'fp8', optionsFile: { file: options.name, sha256: options.sha256 } }, '1.2.0rc1', { fileText: () => options.content });
    expect(built.argv).toEqual(['trtllm-serve', 'm', '--extra_llm_api_options', boxPath(options)]);
    expect(built.unsupported).toHaveLength(1);
    expect(built.unsupported[0]?.knob).toBe('kvCacheDtype');
    expect(built.unsupported[0]?.reason).toMatch(/^TensorRT-LLM 1\.2\.0rc1 takes kvCacheDtype from the options file, and extra\.yaml cannot be merged with it: it is not YAML Servelab can read/);
    const missing = build('trtllm', { model: 'm', kvCacheDtype: 'fp8', optionsFile: { file: 'gone.yaml' } }, '1.2.0rc1', { fileText: () => undefined });
    expect(missing.unsupported[0]?.reason).toBe('TensorRT-LLM 1.2.0rc1 takes kvCacheDtype from the options file, and gone.yaml cannot be merged with it: the study has no file gone.yaml');
  });
});
