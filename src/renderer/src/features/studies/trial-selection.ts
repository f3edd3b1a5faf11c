import type { Trial } from '../../../../shared/study/study';

/** The trial the monitor follows when none is chosen: the newest running one, else the one that started last. */
export function followedTrial(trials: readonly Trial[]): Trial | null {
  const newest = (list: readonly Trial[]) => list.reduce<Trial | null>((best, t) => (best === null || (t.startedAt ?? '') > (best.startedAt ?? '') ? t : best), null);
  return newest(trials.filter((t) => t.status === 'running')) ?? newest(trials.filter((t) => t.startedAt !== undefined));
}

/** The chosen trial while it exists, else the followed one. */
export function selectedTrial(trials: readonly Trial[], chosenId: string | null): Trial | null {
  return (chosenId !== null ? trials.find((t) => t.id === chosenId) : undefined) ?? followedTrial(trials);
}
