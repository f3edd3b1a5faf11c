// What ssh prints on stderr while it reads its configuration, and the point where it gives up.
// error() lines accumulate (ssh keeps reading the file and counts bad lines); fatal() ends the resolution with
// every line printed so far, so the message is what `ssh -G` prints before exiting with 255.
import { ServelabError } from '../../../../shared/contract';

export class SshDiagnostics {
  readonly lines: string[] = [];

  error(message: string): void {
    this.lines.push(visEncode(message));
  }

  fatal(message: string): never {
    this.lines.push(visEncode(message));
    return this.abort();
  }

  /** ssh exits with what it has printed already (cleanup_exit after an error line). */
  abort(): never {
    throw new ServelabError('SSH_CONFIG_INVALID', this.lines.join('\n'), { details: { lines: [...this.lines] } });
  }
}

/**
 * log.c prints messages through strnvis(VIS_SAFE | VIS_OCTAL): a backslash is doubled, and every byte that is not
 * printable ASCII, space, tab, newline, backspace, bell or return is written as a three-digit octal escape.
 */
export function visEncode(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    if (byte === 0x5c) out += '\\\\';
    else if ((byte >= 0x20 && byte < 0x7f) || [0x09, 0x0a, 0x08, 0x07, 0x0d].includes(byte)) out += String.fromCharCode(byte);
    else out += '\\' + byte.toString(8).padStart(3, '0');
  }
  return out;
}
