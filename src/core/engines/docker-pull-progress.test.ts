import { describe, expect, it } from 'vitest';
import { DockerPullProgressParser } from './docker-pull-progress';

describe('DockerPullProgressParser', () => {
  it('reads docker pull lines into phases and a share of layers complete', () => {
    const parser = new DockerPullProgressParser();
    const seen = [
      ...parser.push('v0.11.0: Pulling from vllm/vllm-openai\n'),
      ...parser.push('aaaaaaaaaaaa: Pulling fs layer\nbbbbbbbbbbbb: Pulling fs layer\naaaaaaaaaaaa: Download c'),
      ...parser.push('omplete\naaaaaaaaaaaa: Pull complete\n'),
      ...parser.push('bbbbbbbbbbbb: Verifying Checksum\nbbbbbbbbbbbb: Pull complete\nDigest: sha256:0123\n'),
      ...parser.push('Status: Downloaded newer image for vllm/vllm-openai:v0.11.0\n'),
    ];
    expect(seen).toEqual([
      { phase: 'resolving', percent: 5 },
      { phase: 'downloading', percent: 47 },
      { phase: 'downloading', percent: 90 },
      { phase: 'verifying', percent: 95 },
    ]);
  });

  it('treats an image that is already there as finished', () => {
    const parser = new DockerPullProgressParser();
    expect(parser.push('v0.5.5: Pulling from lmsysorg/sglang\nDigest: sha256:1\nStatus: Image is up to date for lmsysorg/sglang:v0.5.5\n')).toEqual([
      { phase: 'resolving', percent: 5 },
      { phase: 'verifying', percent: 95 },
    ]);
  });
});
