// What the engines do with `--chat-template VALUE` before they serve: the check that refuses a path that does not
// exist, with the engine's own exception and message. The template's text itself is not simulated.

import { traceback } from './pylog.mjs';
import { versionCompare } from './version.mjs';

const atLeast = (version, v) => versionCompare(version, v) >= 0;
const VLLM_SITE = '/usr/lib/python3/dist-packages/vllm';
const SGLANG_SITE = '/usr/lib/python3/dist-packages/sglang';

/**
 * Line numbers of the frames `vllm serve` raises through, per release: vllm/entrypoints/cli/main.py
 * (`cmds[args.subparser].validate(args)`), cli/serve.py (`validate_parsed_serve_args(args)`), openai/cli_args.py
 * (`validate_chat_template(args.chat_template)`), chat_utils.py (`raise ValueError(`) and, for the API server module,
 * openai/api_server.py (`validate_parsed_serve_args(args)`), read at each tag. Keyed by the first release with them.
 */
const VLLM_LINES = [
  ['0.11.0', { main: 51, serve: 60, cliArgs: 274, chatUtils: 1033, apiServer: 1951 }],
  ['0.11.1', { main: 70, serve: 63, cliArgs: 289, chatUtils: 1012, apiServer: 2094 }],
  ['0.12.0', { main: 70, serve: 63, cliArgs: 289, chatUtils: 1142, apiServer: 1889 }],
  ['0.13.0', { main: 70, serve: 63, cliArgs: 289, chatUtils: 1190, apiServer: 1467 }],
  ['0.14.0', { main: 70, serve: 63, cliArgs: 307, chatUtils: 1199, apiServer: 1388 }],
  ['0.15.0', { main: 70, serve: 114, cliArgs: 311, chatUtils: 1106, apiServer: 989 }],
  ['0.16.0', { main: 70, serve: 114, cliArgs: 319, chatUtils: 1048, apiServer: 529 }],
  ['0.17.0', { main: 70, serve: 115, cliArgs: 364, chatUtils: 1056, apiServer: 543 }],
];

/** vllm/transformers_utils/chat_templates/*.jinja at v0.13.0 … v0.17.1 (the same seven files at every tag). */
const VLLM_BUILTIN_TEMPLATES = ['template_basic.jinja', 'template_blip2.jinja', 'template_chatml.jinja', 'template_deepseek_ocr.jinja', 'template_deepseek_vl2.jinja', 'template_fuyu.jinja', 'template_minicpmv45.jinja'];

/**
 * vLLM's validate_chat_template (vllm/entrypoints/chat_utils.py@v0.11.0:1019-1041), run by
 * validate_parsed_serve_args before anything loads: a value holding none of "{}\n" (else it is the template itself)
 * that is not an existing path raises ValueError "The supplied chat template string (…) appears path-like, but
 * doesn't exist!". From v0.13.0 (chat_utils.py@v0.13.0:1169-1197) the value is also looked up in the built-in
 * templates folder (CHAT_TEMPLATES_DIR / value, which for an absolute path is the path itself) and the message adds
 * "Tried: … and …". Returns the traceback text, or null when vLLM accepts the value.
 * @param {string | undefined} value @param {{version: string, module: boolean, exists: (path: string) => boolean}} opts
 */
export function vllmChatTemplateError(value, { version, module, exists }) {
  if (typeof value !== 'string' || /[{}\n]/.test(value) || exists(value)) return null;
  let message = `ValueError: The supplied chat template string (${value}) appears path-like, but doesn't exist!`;
  if (atLeast(version, '0.13.0')) {
    if (VLLM_BUILTIN_TEMPLATES.includes(value)) return null;
    const builtin = value.startsWith('/') ? value : `${VLLM_SITE}/transformers_utils/chat_templates/${value}`;
    message += ` Tried: ${value} and ${builtin}`;
  }
  let lines = VLLM_LINES[0][1];
  for (const [since, at] of VLLM_LINES) if (atLeast(version, since)) lines = at;
  const entry = module
    ? [[`${VLLM_SITE}/entrypoints/openai/api_server.py`, lines.apiServer, '<module>', 'validate_parsed_serve_args(args)']]
    : [
        ['/usr/local/bin/vllm', 10, '<module>', 'sys.exit(main())'],
        [`${VLLM_SITE}/entrypoints/cli/main.py`, lines.main, 'main', 'cmds[args.subparser].validate(args)'],
        [`${VLLM_SITE}/entrypoints/cli/serve.py`, lines.serve, 'validate', 'validate_parsed_serve_args(args)'],
      ];
  return traceback(
    [
      ...entry,
      [`${VLLM_SITE}/entrypoints/openai/cli_args.py`, lines.cliArgs, 'validate_parsed_serve_args', 'validate_chat_template(args.chat_template)'],
      [`${VLLM_SITE}/entrypoints/chat_utils.py`, lines.chatUtils, 'validate_chat_template', 'raise ValueError('],
    ],
    message,
  );
}

/**
 * SGLang's TemplateManager._load_explicit_chat_template (python/sglang/srt/managers/template_manager.py@v0.5.5.post1
 * :145-166; the same check and message at v0.5.0rc0 … v0.5.18): it logs "Loading chat template from argument: …",
 * then a value that is neither a built-in template name nor an existing path raises RuntimeError. This runs in the
 * launching process right after the scheduler processes start (engine.py _init_tokenizer_manager), before the server
 * is ready. Only a value that names a file (a `/`, or a .jinja/.json name) is checked here: the simulation does not
 * keep SGLang's list of built-in template names. Returns {logLines, frames, exception} or null.
 * @param {string | undefined} value @param {{exists: (path: string) => boolean}} opts
 */
export function sglangChatTemplateError(value, { exists }) {
  if (typeof value !== 'string' || !/\/|\.(jinja|json)$/.test(value) || exists(value)) return null;
  // Frames at v0.5.5.post1 (launch_server.py, entrypoints/http_server.py, entrypoints/engine.py, managers/template_manager.py).
  return {
    logLines: [`Loading chat template from argument: ${value}`],
    frames: [
      [`${SGLANG_SITE}/launch_server.py`, 27, '<module>', 'run_server(server_args)'],
      [`${SGLANG_SITE}/launch_server.py`, 20, 'run_server', 'launch_server(server_args)'],
      [`${SGLANG_SITE}/srt/entrypoints/http_server.py`, 1360, 'launch_server', '_launch_subprocesses(server_args=server_args)'],
      [`${SGLANG_SITE}/srt/entrypoints/engine.py`, 886, '_launch_subprocesses', 'tokenizer_manager, template_manager = _init_tokenizer_manager('],
      [`${SGLANG_SITE}/srt/entrypoints/engine.py`, 758, '_init_tokenizer_manager', 'template_manager.initialize_templates('],
      [`${SGLANG_SITE}/srt/managers/template_manager.py`, 215, 'initialize_templates', 'self.load_chat_template(tokenizer_manager, chat_template, model_path)'],
      [`${SGLANG_SITE}/srt/managers/template_manager.py`, 113, 'load_chat_template', 'self._load_explicit_chat_template(tokenizer_manager, chat_template_arg)'],
      [`${SGLANG_SITE}/srt/managers/template_manager.py`, 156, '_load_explicit_chat_template', 'raise RuntimeError('],
    ],
    exception: `RuntimeError: Chat template ${value} is not a built-in template name or a valid chat template file path.`,
  };
}
