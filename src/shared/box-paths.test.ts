import { describe, expect, it } from 'vitest';
import { homeRelativeBoxPaths } from './box-paths';

describe('homeRelativeBoxPaths', () => {
  it("writes a real box's home and the demo lab's local folder as ~", () => {
    expect(homeRelativeBoxPaths('/home/ubuntu/.servelab/engines/vllm-0.11.0/bin/vllm bench serve --dataset-path /home/ubuntu/.servelab/datasets/sharegpt.json')).toBe(
      '~/.servelab/engines/vllm-0.11.0/bin/vllm bench serve --dataset-path ~/.servelab/datasets/sharegpt.json',
    );
    expect(homeRelativeBoxPaths('--result-dir=/root/.local/share/servelab/demo-lab/home/.servelab/bench/r1')).toBe('--result-dir=~/.servelab/bench/r1');
    expect(homeRelativeBoxPaths('/.servelab/datasets/a.json')).toBe('~/.servelab/datasets/a.json');
  });

  it('keeps a quoted path working in a shell: the quotes move past the ~', () => {
    expect(homeRelativeBoxPaths("x --dataset-path '/tmp/my lab/.servelab/datasets/a.json'")).toBe('x --dataset-path ~/.servelab/datasets/a.json');
    expect(homeRelativeBoxPaths("x '/srv/h/.servelab/datasets/with space.json'")).toBe("x ~/'.servelab/datasets/with space.json'");
  });

  it('leaves alone what is not a path into a home .servelab folder', () => {
    for (const text of ['/data/sharegpt.json', '/home/me/studies/latency.servelab', 'vllm serve Qwen/Qwen3-8B', '~/.servelab/datasets/a.json', 'see docs/.servelab/x']) {
      expect(homeRelativeBoxPaths(text)).toBe(text);
    }
  });
});
