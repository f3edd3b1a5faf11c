// The simulated box's Python tooling: venv, pip and uv with the engines' install commands (their install guides),
// their real failure shapes, version checks, side-by-side versions, and delegation to the real python3.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { makeBox, type Box } from './helpers';

let box: Box;
beforeAll(() => {
  box = makeBox({ timeScale: 0.0005 });
});
afterAll(() => box?.cleanup());

describe('python3 -m venv + pip', () => {
  it('creates an environment with python, pip and a manifest; pip reports its version', () => {
    const env = join(box.home, 'envs', 'a');
    expect(box.run('python3', ['-m', 'venv', env]).code).toBe(0);
    expect(existsSync(join(env, 'pyvenv.cfg'))).toBe(true);
    expect(JSON.parse(readFileSync(join(env, 'simbox-env.json'), 'utf8'))).toMatchObject({ simulated: true, packages: { pip: '24.0' } });
    expect(box.run(join(env, 'bin', 'python'), ['-m', 'pip', '--version']).stdout).toMatch(/^pip 24\.0 from .*\/site-packages\/pip \(python 3\.\d+\)\n$/);
  });

  it("installs vllm with its install guide's command, idempotently, and verifies it by importing it", () => {
    const env = join(box.home, 'envs', 'a');
    const pip = join(env, 'bin', 'pip');
    const r = box.run(pip, ['install', 'vllm==0.11.0', '--extra-index-url', 'https://download.pytorch.org/whl/cu128']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Collecting vllm==0.11.0');
    expect(r.stdout).toMatch(/Downloading vllm-0\.11\.0-cp38-abi3-manylinux1_x86_64\.whl \(438\.2 MB\)/);
    expect(r.stdout).toMatch(/Successfully installed .*vllm-0\.11\.0/);
    expect(existsSync(join(env, 'bin', 'vllm'))).toBe(true);
    const again = box.run(pip, ['install', 'vllm==0.11.0']);
    expect(again.stdout).toContain('Requirement already satisfied: vllm==0.11.0');
    expect(box.run(join(env, 'bin', 'python'), ['-c', 'import vllm; print(vllm.__version__)']).stdout).toBe('0.11.0\n');
    const missing = box.run(join(env, 'bin', 'python'), ['-c', 'import tensorrt_llm; print(tensorrt_llm.__version__)']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("ModuleNotFoundError: No module named 'tensorrt_llm'");
    const noModule = box.run(join(env, 'bin', 'python'), ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B']);
    expect(noModule.code).toBe(1);
    expect(noModule.stderr).toContain("Error while finding module specification for 'sglang.launch_server' (ModuleNotFoundError: No module named 'sglang')");
  });

  it('fails like pip for an unknown version or package (exit 1) and an unknown option (exit 2)', () => {
    const pip = join(box.home, 'envs', 'a', 'bin', 'pip');
    const version = box.run(pip, ['install', 'vllm==9.9.9']);
    expect(version.code).toBe(1);
    expect(version.stderr).toContain('ERROR: Could not find a version that satisfies the requirement vllm==9.9.9 (from versions: ');
    expect(version.stderr).toContain('0.11.0');
    expect(version.stderr).toContain('ERROR: No matching distribution found for vllm==9.9.9');
    const pkg = box.run(pip, ['install', 'vllmm']);
    expect(pkg.code).toBe(1);
    expect(pkg.stderr).toContain('(from versions: none)');
    const opt = box.run(pip, ['install', '--bogus', 'vllm']);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain('no such option: --bogus');
  });

  it('installs two SGLang versions side by side (0.5.5 has no [all] extra) and TensorRT-LLM rc with --pre', () => {
    const a = join(box.home, 'engines', 'sglang-0.5.3.post3');
    const b = join(box.home, 'engines', 'sglang-0.5.5.post1');
    for (const [dir, spec] of [
      [a, 'sglang[all]==0.5.3.post3'],
      [b, 'sglang[all]==0.5.5.post1'],
    ] as const) {
      expect(box.run('python3', ['-m', 'venv', dir]).code).toBe(0);
      const r = box.run(join(dir, 'bin', 'pip'), ['install', spec]);
      expect(r.code).toBe(0);
      if (dir === b) expect(r.stdout).toContain("WARNING: sglang 0.5.5.post1 does not provide the extra 'all'");
      else expect(r.stdout).not.toContain('does not provide the extra');
    }
    expect(box.run(join(a, 'bin', 'python'), ['-c', 'import sglang; print(sglang.__version__)']).stdout).toBe('0.5.3.post3\n');
    expect(box.run(join(b, 'bin', 'python'), ['-c', 'import sglang; print(sglang.__version__)']).stdout).toBe('0.5.5.post1\n');
    const t = join(box.home, 'engines', 'tensorrt_llm-1.2.0rc1');
    expect(box.run('python3', ['-m', 'venv', t]).code).toBe(0);
    const r = box.run(join(t, 'bin', 'pip'), ['install', '--pre', '--extra-index-url', 'https://pypi.nvidia.com', 'tensorrt_llm==1.2.0rc1']);
    expect(r.code).toBe(0);
    expect(existsSync(join(t, 'bin', 'trtllm-serve'))).toBe(true);
    expect(box.run(join(t, 'bin', 'python3'), ['-c', 'import tensorrt_llm; print(tensorrt_llm.__version__)']).stdout).toBe('1.2.0rc1\n');
  });

  it('refuses system-wide pip installs like Ubuntu 24.04 (PEP 668) and delegates other Python to the real python3', () => {
    const r = box.run('python3', ['-m', 'pip', 'install', 'vllm==0.11.0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: externally-managed-environment');
    expect(box.run('python3', ['-m', 'pip', '--version']).stdout).toMatch(/^pip 24\.0 from /);
    const hasRealPython = spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).status === 0;
    if (hasRealPython) expect(box.run('python3', ['-c', 'print(6 * 7)']).stdout).toBe('42\n');
  });
});

describe('uv', () => {
  it('reports a version, creates a venv and installs with `uv pip install --python DIR` (vLLM\'s install guide)', () => {
    expect(box.run('uv', ['--version']).stdout).toMatch(/^uv \d+\.\d+\.\d+ /);
    const env = join(box.home, 'engines', 'vllm-0.11.0');
    const v = box.run('uv', ['venv', '--python', '3.12', env]);
    expect(v.code).toBe(0);
    expect(v.stderr).toContain(`Creating virtual environment at: ${env}`);
    const r = box.run('uv', ['pip', 'install', '--python', env, 'vllm==0.11.0', '--torch-backend=auto']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Resolved \d+ packages in/);
    expect(r.stderr).toContain(' + vllm==0.11.0');
    expect(box.run(join(env, 'bin', 'vllm'), ['--version']).stdout).toBe('0.11.0\n');
    expect(box.run(join(env, 'bin', 'python'), ['--version']).stdout).toMatch(/^Python 3\.12\.\d+\n$/);
    const again = box.run('uv', ['pip', 'install', '--python', join(env, 'bin', 'python'), 'vllm==0.11.0']);
    expect(again.stderr).toMatch(/Audited \d+ packages/);
  });

  it('fails like uv for an unknown version (exit 1) and an unknown flag (exit 2)', () => {
    const env = join(box.home, 'engines', 'vllm-0.11.0');
    const r = box.run('uv', ['pip', 'install', '--python', env, 'sglang==9.9']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('No solution found when resolving dependencies');
    const f = box.run('uv', ['pip', 'install', '--python', env, '--bogus', 'vllm']);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain("error: unexpected argument '--bogus' found");
  });
});
