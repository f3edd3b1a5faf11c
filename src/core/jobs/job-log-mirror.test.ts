import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobLogMirror } from './job-log-mirror';

const dir = () => mkdtempSync(join(tmpdir(), 'servelab-mirror-'));

describe('JobLogMirror', () => {
  it('keeps chunks and the remote offset to resume from', () => {
    const d = dir();
    const mirror = JobLogMirror.open(d, 'job1');
    expect(mirror.remoteOffset).toBe(0);
    mirror.append('line 1\n', 7);
    mirror.append('ünï 2\n', 16);
    const reopened = JobLogMirror.open(d, 'job1');
    expect(reopened.remoteOffset).toBe(16);
    expect(reopened.read()).toBe('line 1\nünï 2\n');
  });

  it('after a crash between the data and the mark, cuts back to the mark so the tail is read once more, not twice', () => {
    const d = dir();
    const mirror = JobLogMirror.open(d, 'job2');
    mirror.append('a\n', 2);
    // The process died after appending the next chunk but before recording its mark.
    appendFileSync(join(d, 'job2.log'), 'b\n');
    const reopened = JobLogMirror.open(d, 'job2');
    expect(reopened.remoteOffset).toBe(2);
    expect(reopened.read()).toBe('a\n');
    reopened.append('b\n', 4);
    expect(JobLogMirror.open(d, 'job2').read()).toBe('a\nb\n');
  });

  it('starts over when the copy lost bytes the mark vouched for', () => {
    const d = dir();
    JobLogMirror.open(d, 'job3').append('abc', 3);
    writeFileSync(join(d, 'job3.log'), 'a');
    const reopened = JobLogMirror.open(d, 'job3');
    expect(reopened.remoteOffset).toBe(0);
    expect(reopened.read()).toBe('');
  });
});
