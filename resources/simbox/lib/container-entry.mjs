// The process of a simulated container (started by the simulated `docker run`): the engine server of the image.
// argv: ENGINE VERSION ENTRY ARGS… where ENTRY says how the image's command was given.

const [engine, version, entry, ...args] = process.argv.slice(2);
const cli = await import('./engine-cli.mjs');
if (engine === 'vllm' && entry === 'vllm-api-server') {
  // The image's entrypoint is `python3 -m vllm.entrypoints.openai.api_server`: `vllm serve`'s flags, its own parser.
  await cli.vllmApiServerMain(args, { version, processEnv: process.env });
} else if (engine === 'sglang' && entry === 'sglang-launch-server') {
  await cli.sglangLaunchMain(args, { version });
} else if (engine === 'trtllm' && entry === 'trtllm-serve') {
  await cli.trtllmServeMain(args, { version, python: 'python3' });
} else {
  process.stderr.write(`simbox container: nothing to run for ${engine} ${entry}\n`);
  process.exitCode = 127;
}
