import { describe, expect, it, vi } from 'vitest';
import type { EventMessage } from '../../shared/contract';
import type { StudyState } from '../../shared/study/study';
import { studyNotifier, type StudyNotifierDeps } from './study-notifier';

const state = (status: StudyState['status'], message?: string): EventMessage => ({
  name: 'studies:state',
  payload: { path: '/p/qwen3-8b.servelab', state: { status, trials: [], decisions: [], ...(message ? { message } : {}) } },
});

function setup(focused = false) {
  const shown: Array<{ title: string; body: string }> = [];
  const clicks: Array<() => void> = [];
  const deps: StudyNotifierDeps = {
    isSupported: () => true,
    create: (options) => ({
      show: () => shown.push(options),
      on: (_event, listener) => clicks.push(listener),
    }),
    anyWindowFocused: () => focused,
    showWindow: vi.fn(),
  };
  return { notify: studyNotifier(deps), shown, clicks, deps };
}

describe('study notifier', () => {
  it('notifies when a study it saw running ends while no window has the focus; a click shows the window', () => {
    const { notify, shown, clicks, deps } = setup();
    notify(state('running'));
    notify(state('failed', 'The engine ran out of memory.'));
    expect(shown).toEqual([{ title: 'Study failed', body: 'qwen3-8b: The engine ran out of memory.' }]);
    clicks[0]!();
    expect(deps.showWindow).toHaveBeenCalledOnce();
    notify(state('running'));
    notify(state('done'));
    expect(shown.at(-1)).toEqual({ title: 'Study finished', body: 'qwen3-8b' });
  });

  it('says nothing for a study it did not see running, a repeated end, or while a window has the focus', () => {
    const { notify, shown } = setup();
    notify(state('done'));
    notify(state('running'));
    notify(state('cancelled'));
    notify(state('cancelled'));
    expect(shown).toEqual([{ title: 'Study was cancelled', body: 'qwen3-8b' }]);
    const focused = setup(true);
    focused.notify(state('running'));
    focused.notify(state('done'));
    expect(focused.shown).toEqual([]);
    focused.notify({ name: 'studies:phase', payload: { path: '/p/x.servelab', text: 'x' } });
    expect(focused.shown).toEqual([]);
  });
});
