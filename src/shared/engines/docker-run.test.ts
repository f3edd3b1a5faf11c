import { describe, expect, it } from 'vitest';
import { getAdapter } from './adapters';
import { buildDockerRun, containerCommand, dockerImage, engineOfImage } from './docker-run';
import { parseServerConfig } from './server-config';

const HF = '/home/u/.cache/huggingface';
const FILES_DIR = '/home/u/.servelab/servers/srv-1';

function serverArgv(engine: 'vllm' | 'sglang' | 'trtllm', version: string) {
  const config = parseServerConfig({ model: 'Qwen/Qwen3-8B', host: '0.0.0.0', port: 8123, tensorParallelSize: 2, cudaGraphMaxBatchSize: 64 });
  return getAdapter(engine).buildArgv(config, version, { filesDir: FILES_DIR });
}

describe('buildDockerRun', () => {
  it('vLLM: the image runs the API server, so the model becomes --model and "vllm serve" is dropped', () => {
    const built = serverArgv('vllm', '0.11.0');
    expect(built.argv.slice(0, 3)).toEqual(['vllm', 'serve', 'Qwen/Qwen3-8B']);
    const argv = buildDockerRun({
      engine: 'vllm',
      version: '0.11.0',
      serverArgv: built.argv,
      port: 8123,
      hfCacheDir: HF,
      envNames: ['HF_TOKEN'],
      plainEnv: { NCCL_DEBUG: 'INFO' },
      user: '1000:1000',
      name: 'servelab-srv-1',
    });
    expect(argv).toEqual([
      'docker', 'run', '--rm', '--name', 'servelab-srv-1',
      '--user', '1000:1000',
      '--gpus', 'all',
      '--ipc=host',
      '-p', '127.0.0.1:8123:8123',
      '-v', `${HF}:/servelab-hf`,
      '--env', 'HF_HOME=/servelab-hf',
      '--env', 'HOME=/tmp',
      '--env', 'USER=servelab',
      '--env', 'LOGNAME=servelab',
      '--env', 'NCCL_DEBUG',
      '--env', 'HF_TOKEN',
      'vllm/vllm-openai:v0.11.0',
      '--model', 'Qwen/Qwen3-8B', ...built.argv.slice(3),
    ]);
    expect(argv).not.toContain('serve');
    expect(argv).toContain('--tensor-parallel-size');
  });

  it('SGLang: the image has no server entrypoint, so the whole python3 -m sglang.launch_server command follows it', () => {
    const built = serverArgv('sglang', '0.5.3.post3');
    const argv = buildDockerRun({ engine: 'sglang', version: '0.5.3.post3', serverArgv: built.argv, port: 30001, gpus: ['0', '1'], hfCacheDir: HF, name: 'servelab-srv-2' });
    expect(argv).toEqual([
      'docker', 'run', '--rm', '--name', 'servelab-srv-2',
      '--gpus', '"device=0,1"',
      '--shm-size', '32g', '--ipc=host',
      '-p', '127.0.0.1:30001:30001',
      '-v', `${HF}:/servelab-hf`,
      '--env', 'HF_HOME=/servelab-hf',
      'lmsysorg/sglang:v0.5.3.post3',
      'python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--host', '0.0.0.0', '--port', '8123', '--tp-size', '2', '--cuda-graph-max-bs', '64',
    ]);
  });

  it('TensorRT-LLM: trtllm-serve in the image, its ulimits, and the generated options file mounted read-only at its own path', () => {
    const built = serverArgv('trtllm', '1.2.0rc1');
    const files = (built.extraFiles ?? []).map((f) => f.path);
    expect(files).toEqual([`${FILES_DIR}/extra_llm_api_options.yaml`]);
    const argv = buildDockerRun({ engine: 'trtllm', version: '1.2.0rc1', serverArgv: built.argv, port: 8000, gpus: ['GPU-7a83c607-3a4d-9c92-985a-881af537acf6'], hfCacheDir: HF, files, name: 'servelab-srv-3' });
    expect(argv).toEqual([
      'docker', 'run', '--rm', '--name', 'servelab-srv-3',
      '--gpus', '"device=GPU-7a83c607-3a4d-9c92-985a-881af537acf6"',
      '--ipc=host', '--ulimit', 'memlock=-1', '--ulimit', 'stack=67108864',
      '-p', '127.0.0.1:8000:8000',
      '-v', `${HF}:/servelab-hf`,
      '--env', 'HF_HOME=/servelab-hf',
      '-v', `${FILES_DIR}:${FILES_DIR}:ro`,
      'nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc1',
      'trtllm-serve', 'Qwen/Qwen3-8B', '--host=0.0.0.0', '--port=8123', '--tp_size=2', `--extra_llm_api_options=${FILES_DIR}/extra_llm_api_options.yaml`,
    ]);
  });

  it('never puts an env value in argv: plain values too come from the docker CLI\'s environment, by name', () => {
    const argv = buildDockerRun({ engine: 'vllm', version: '0.11.0', serverArgv: ['vllm', 'serve', 'm'], port: 1, hfCacheDir: HF, plainEnv: { NCCL_DEBUG: 'INFO' }, name: 'n' });
    expect(argv.join(' ')).not.toContain('INFO');
    expect(argv).toContain('NCCL_DEBUG');
  });

  it('runs offline once the weights are in the cache: HF_HUB_OFFLINE=1 and no token', () => {
    const argv = buildDockerRun({ engine: 'vllm', version: '0.11.0', serverArgv: ['vllm', 'serve', 'm'], port: 1, hfCacheDir: HF, envNames: ['HF_TOKEN', 'VLLM_API_KEY'], offline: true, name: 'n' });
    expect(argv).toContain('HF_HUB_OFFLINE=1');
    expect(argv).not.toContain('HF_TOKEN');
    expect(argv).toContain('VLLM_API_KEY');
  });

  it('never puts a secret value in argv: secret variables are passed by name only', () => {
    const argv = buildDockerRun({ engine: 'vllm', version: '0.11.0', serverArgv: ['vllm', 'serve', 'm'], port: 1, hfCacheDir: HF, envNames: ['HF_TOKEN'], name: 'n' });
    expect(argv.filter((w) => w.startsWith('HF_TOKEN'))).toEqual(['HF_TOKEN']);
  });

  it('refuses a relative cache folder and a vLLM argv without a model', () => {
    expect(() => buildDockerRun({ engine: 'vllm', version: '0.11.0', serverArgv: ['vllm', 'serve', 'm'], port: 1, hfCacheDir: '.cache', name: 'n' })).toThrow(/absolute/);
    expect(() => containerCommand('vllm', ['vllm', 'serve', '--port', '1'])).toThrow(/vllm serve MODEL/);
  });
});

describe('images', () => {
  it('names the official image per engine and recognises it back', () => {
    expect(dockerImage('vllm', '0.11.0')).toBe('vllm/vllm-openai:v0.11.0');
    expect(dockerImage('sglang', '0.5.5')).toBe('lmsysorg/sglang:v0.5.5');
    expect(dockerImage('trtllm', '1.2.0rc1')).toBe('nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc1');
    expect(engineOfImage('vllm/vllm-openai:v0.11.0')).toEqual({ engine: 'vllm', version: '0.11.0' });
    expect(engineOfImage('docker.io/lmsysorg/sglang:v0.5.3.post3')).toEqual({ engine: 'sglang', version: '0.5.3.post3' });
    expect(engineOfImage('nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc1')).toEqual({ engine: 'trtllm', version: '1.2.0rc1' });
    expect(engineOfImage('vllm/vllm-openai:latest')).toBeNull();
    expect(engineOfImage('lmsysorg/sglang:v0.5.5-cu129-amd64')).toEqual({ engine: 'sglang', version: '0.5.5-cu129-amd64' });
    expect(engineOfImage('ubuntu:22.04')).toBeNull();
  });
});
