import { describe, expect, it } from 'vitest';
import { InstallProgressParser } from './install-progress';
import { installScript } from './engine-installer';
import { getAdapter } from '../../shared/engines';

describe('InstallProgressParser', () => {
  it('follows pip through its phases, only forwards, across split chunks', () => {
    const parser = new InstallProgressParser();
    const phases = [
      ...parser.push('servelab: creating the environment /h/.servelab/engines/vllm-0.11.0\nCollecting vllm==0.11.0\n  Downloading vllm-0.11.0.whl.metadata (12 kB)\nCollecting torch==2.8.0 (from vllm==0.11.0)\n'),
      ...parser.push('Downloading vllm-0.11.0-cp38-abi3-manylinux1_x86_64.whl (400.1 MB)\nInstalling collected packages: torch, vllm\nSuccessfully ins'),
      ...parser.push('talled torch-2.8.0 vllm-0.11.0\nservelab: verifying the import\n'),
    ].map((p) => p.phase);
    expect(phases).toEqual(['environment', 'resolving', 'downloading', 'installing', 'verifying']);
  });

  it("reads uv's summary lines", () => {
    const parser = new InstallProgressParser();
    const phases = parser.push('Using CPython 3.12.3\nResolved 51 packages in 1.41s\nPrepared 49 packages in 18.20s\nInstalled 49 packages in 2.40s\n').map((p) => p.phase);
    expect(phases).toEqual(['environment', 'resolving', 'downloading', 'installing']);
  });
});

describe('installScript', () => {
  it('uses the adapter pins, with uv or with venv + pip', () => {
    const spec = getAdapter('vllm').installSpec('0.11.0');
    const uv = installScript('/home/u/.servelab/engines/vllm-0.11.0', spec, 'uv');
    expect(uv).toContain('uv venv --python 3.12 /home/u/.servelab/engines/vllm-0.11.0');
    expect(uv).toContain('uv pip install --python /home/u/.servelab/engines/vllm-0.11.0 --torch-backend=auto vllm==0.11.0');
    const pip = installScript('/home/u/.servelab/engines/trtllm-1.2.0rc1', getAdapter('trtllm').installSpec('1.2.0rc1'), 'pip');
    expect(pip).toContain('python3 -m venv /home/u/.servelab/engines/trtllm-1.2.0rc1');
    expect(pip).toContain("-c 'import tensorrt_llm; print(tensorrt_llm.__version__)'");
  });

  it('never merges package indexes: a package from a vendor index comes from it alone, in its own step', () => {
    for (const engine of ['vllm', 'sglang', 'trtllm'] as const) {
      for (const tool of ['uv', 'pip'] as const) {
        const script = installScript('/e', getAdapter(engine).installSpec(getAdapter(engine).defaultVersion), tool);
        expect(script, `${engine} ${tool}`).not.toMatch(/--extra-index-url/);
      }
    }
    const pip = installScript('/e', getAdapter('trtllm').installSpec('1.2.0rc1'), 'pip');
    expect(pip).toContain('/e/bin/pip install --index-url https://pypi.nvidia.com --no-deps --pre tensorrt_llm==1.2.0rc1\n/e/bin/pip install --pre tensorrt_llm==1.2.0rc1\n');
    const uv = installScript('/e', getAdapter('trtllm').installSpec('1.2.0rc1'), 'uv');
    expect(uv).toContain('uv pip install --python /e --index-url https://pypi.nvidia.com --no-deps --prerelease=allow tensorrt_llm==1.2.0rc1\nuv pip install --python /e --prerelease=allow tensorrt_llm==1.2.0rc1\n');
  });
});
