// What ssh prints on stderr while it reads its configuration, and the point where it gives up.
// error() lines accumulate (ssh keeps reading the file and counts bad lines); fatal() ends the resolution with
// every line printed so far, so the message is what `ssh -G` prints before exiting with 255.
import { ServelabError } from '../../../../shared/contract';

export class SshDiagnostics {
  readonly lines: string[] = [];

  error(message: string): void {
    this.lines.push(message);
  }

  fatal(message: string): never {
    this.lines.push(message);
    return this.abort();
  }

  /** ssh exits with what it has printed already (cleanup_exit after an error line). */
  abort(): never {
    throw new ServelabError('SSH_CONFIG_INVALID', this.lines.join('\n'), { details: { lines: [...this.lines] } });
  }
}
