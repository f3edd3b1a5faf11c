import type { InstallProgress } from './install-progress';

/**
 * Follows `docker pull` output. Without a terminal docker prints one line per layer event (`<layer>: Pulling fs
 * layer`, `Waiting`, `Download complete`, `Pull complete`) and no byte counts, so the share of layers complete is
 * the progress; `Status: …` ends the pull.
 */
export class DockerPullProgressParser {
  private readonly layers = new Set<string>();
  private readonly complete = new Set<string>();
  private rest = '';
  private lastPercent = -1;
  private finished = false;

  push(text: string): InstallProgress[] {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop() ?? '';
    const out: InstallProgress[] = [];
    for (const raw of lines) {
      const line = raw.replace(/\r/g, '').trim();
      const layer = /^([0-9a-f]{12,64}): (.+)$/.exec(line);
      if (layer) {
        const [, id = '', event = ''] = layer;
        this.layers.add(id);
        if (/^(Pull complete|Already exists)$/.test(event)) this.complete.add(id);
      } else if (/^Status: (Downloaded newer image|Image is up to date) for /.test(line)) {
        this.finished = true;
      } else if (!/: Pulling from /.test(line)) {
        continue;
      }
      const percent = this.percent();
      if (percent !== this.lastPercent) {
        this.lastPercent = percent;
        out.push({ phase: this.finished ? 'verifying' : percent === 5 ? 'resolving' : 'downloading', percent });
      }
    }
    return out;
  }

  /** 5 % once the pull started, up to 90 % as layers complete, 95 % when docker says the image is there. */
  private percent(): number {
    if (this.finished) return 95;
    if (this.layers.size === 0) return 5;
    return 5 + Math.floor((85 * this.complete.size) / this.layers.size);
  }
}
