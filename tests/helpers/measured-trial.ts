import type { Trial } from '../../src/shared/study/study';

/** A planned trial as the runner leaves a measured one: done, with `metrics` as its one result. */
export function measuredTrial(trial: Trial, metrics: Record<string, number>, finishedAt = '2026-01-01T10:00:00.000Z'): Trial {
  return {
    ...trial,
    status: 'done',
    finishedAt,
    result: { id: 'res-abc-0123abcd', kind: 'measured', status: 'ok', addedAt: finishedAt, title: trial.label, result: { schemaVersion: 1, metrics, extra: {} } },
  };
}
