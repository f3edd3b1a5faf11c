// The classifier measured on real server logs (tests/fixtures/engine-log-corpus): the development part, which the
// rules are built on, and the held-out part, which no rule is tuned on. Both scores are printed for CI's log.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { classifyLog } from '../../src/shared/engines';
import { formatScore, loadRealCorpus, REAL_CORPUS_DIR, scoreCorpus, type RealLogCase } from '../helpers/log-corpus';

const withHint = (c: RealLogCase) => classifyLog(c.text, { engine: c.label.engine });
const withoutHint = (c: RealLogCase) => classifyLog(c.text);

describe.each(['dev', 'held-out'] as const)('the real log corpus, %s part', (part) => {
  const present = existsSync(join(REAL_CORPUS_DIR, part));
  it.runIf(present)('is classified right for at least 95% of its logs, never calling a failure ready or a ready log a failure', () => {
    const cases = loadRealCorpus(part);
    const hinted = scoreCorpus(cases, withHint);
    const detected = scoreCorpus(cases, withoutHint);
    console.log(formatScore(`${part}, engine given`, hinted));
    console.log(formatScore(`${part}, engine recognised from the log`, detected));
    if (part === 'dev' && process.env.SERVELAB_CORPUS_MISSES) for (const m of detected.misses) console.log(`  ${m.id}: ${m.expected} → ${m.got} | ${m.evidence.slice(0, 120)}`);
    for (const score of [hinted, detected]) {
      expect(score.right / score.total).toBeGreaterThanOrEqual(0.95);
      expect(score.falseReady).toEqual([]);
      expect(score.falseFailure).toEqual([]);
    }
  });
});
