// What the scripts in a simulated environment's bin/ run: python, pip, and the engines' console scripts.

import { join } from 'node:path';
import { readEnv } from './envs.mjs';
import { pythonMain } from './python-shim.mjs';

export async function main(kind, envDir, argv) {
  const env = readEnv(envDir);
  if (!env) {
    process.stderr.write(`${join(envDir, 'bin', kind)}: not a simulated environment (simbox-env.json is missing)\n`);
    process.exitCode = 1;
    return;
  }
  const python = join(envDir, 'bin', 'python');
  let code = null;
  if (kind === 'python') code = await pythonMain(argv, { envDir, prog: python });
  else if (kind === 'pip') code = await pythonMain(['-m', 'pip', ...argv], { envDir, prog: python });
  else if (kind === 'vllm' || kind === 'trtllm-serve') {
    const pkg = kind === 'vllm' ? 'vllm' : 'tensorrt_llm';
    const version = env.packages[pkg];
    if (!version) {
      process.stderr.write(`Traceback (most recent call last):\n  File "${join(envDir, 'bin', kind)}", line 5, in <module>\nModuleNotFoundError: No module named '${pkg}'\n`);
      process.exitCode = 1;
      return;
    }
    const cli = await import('./engine-cli.mjs');
    if (kind === 'vllm') await cli.vllmMain(argv, { version, processEnv: process.env });
    else await cli.trtllmServeMain(argv, { version, python });
  }
  if (code !== null && code !== undefined) process.exitCode = code;
}
