import { Utf8ChunkDecoder } from '../ssh/utf8-decoder';
import type { CommandChannel } from '../jobs/command-channel';
import { execOnChannel } from '../jobs/exec-binary';
import { scriptWithStdin, type BoxRunOptions, type BoxRunResult } from './box-transport';

/** A listener of text as a listener of raw chunks, decoded as UTF-8 without splitting a character across chunks. */
export function textChunks(listener: ((text: string) => void) | undefined): ((chunk: Buffer) => void) | undefined {
  if (!listener) return undefined;
  const decoder = new Utf8ChunkDecoder();
  return (chunk: Buffer) => {
    const { text } = decoder.push(chunk);
    if (text) listener(text);
  };
}

/** BoxTransport.run on a command channel: `sh -l -s` with the script (and any stdin data) on its stdin. */
export async function runOnChannel(channel: CommandChannel, script: string, opts: BoxRunOptions): Promise<BoxRunResult> {
  const onStdout = textChunks(opts.onStdout);
  const onStderr = textChunks(opts.onStderr);
  const result = await execOnChannel(channel, 'sh -l -s', {
    stdin: scriptWithStdin(script, opts.stdin),
    timeoutMs: Math.max(1, Math.round(opts.timeoutSeconds * 1000)),
    ...(onStdout ? { onStdout } : {}),
    ...(onStderr ? { onStderr } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.background ? { background: true } : {}),
  });
  return { stdout: result.stdout.toString('utf8'), stderr: result.stderr, code: result.code };
}
