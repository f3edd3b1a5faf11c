import type { EventMessage } from '../../shared/contract';
import { withoutProjectSuffix } from '../../shared/project-document';

/** The part of Electron's Notification the notifier needs. */
export interface NotificationLike {
  show(): void;
  on(event: 'click', listener: () => void): unknown;
}

export interface StudyNotifierDeps {
  isSupported: () => boolean;
  create: (options: { title: string; body: string }) => NotificationLike;
  /** Whether one of the app's windows has the focus: then the in-app banner says it and no notification is shown. */
  anyWindowFocused: () => boolean;
  /** Brings the app's window forward (a click on the notification). */
  showWindow: () => void;
}

const ENDED = { done: 'finished', failed: 'failed', cancelled: 'was cancelled' } as const;

function projectName(path: string): string {
  return withoutProjectSuffix(path.split(/[\\/]/).at(-1) ?? path);
}

/**
 * Follows the core's events and, when a study this app ran (it saw the study running) ends while no window has the
 * focus, shows a native notification. Returns the event listener to subscribe to the core's bus.
 */
export function studyNotifier(deps: StudyNotifierDeps): (message: EventMessage) => void {
  const running = new Set<string>();
  return (message) => {
    if (message.name !== 'studies:state') return;
    const { path, state } = message.payload;
    if (state.status === 'running') {
      running.add(path);
      return;
    }
    if (!running.delete(path)) return;
    if (state.status === 'draft' || deps.anyWindowFocused() || !deps.isSupported()) return;
    const notification = deps.create({
      title: `Study ${ENDED[state.status]}`,
      body: state.message && state.status !== 'done' ? `${projectName(path)}: ${state.message}` : projectName(path),
    });
    notification.on('click', deps.showWindow);
    notification.show();
  };
}
