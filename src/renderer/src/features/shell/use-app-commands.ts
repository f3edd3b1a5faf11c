import { useEffect, useRef } from 'react';
import { useApi } from '../../api/context';
import type { AppCommand } from '../../../../shared/contract';

/** The keys of each command, as the shortcuts dialog shows them (`Mod` is Ctrl, or ⌘ on a Mac). */
export const SHORTCUTS: readonly { command: AppCommand; keys: string[] }[] = [
  { command: 'newStudy', keys: ['Mod', 'N'] },
  { command: 'open', keys: ['Mod', 'O'] },
  { command: 'save', keys: ['Mod', 'S'] },
  { command: 'saveAs', keys: ['Mod', 'Shift', 'S'] },
  { command: 'export', keys: ['Mod', 'E'] },
  { command: 'page:hosts', keys: ['Mod', '1'] },
  { command: 'page:engines', keys: ['Mod', '2'] },
  { command: 'page:studies', keys: ['Mod', '3'] },
  { command: 'page:results', keys: ['Mod', '4'] },
  { command: 'shortcuts', keys: ['Mod', '/'] },
];

type KeyLike = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey' | 'target'>;

/** Whether typing goes into this element, so a plain `?` is text there, not a command. */
function takesText(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(target.type);
}

const WITH_MOD: Record<string, AppCommand> = {
  n: 'newStudy',
  o: 'open',
  s: 'save',
  e: 'export',
  '1': 'page:hosts',
  '2': 'page:engines',
  '3': 'page:studies',
  '4': 'page:results',
  '/': 'shortcuts',
};

/** The command a key press stands for, or null. */
export function commandForKey(event: KeyLike): AppCommand | null {
  if (event.altKey) return null;
  if (event.ctrlKey || event.metaKey) {
    const key = event.key.toLowerCase();
    if (event.shiftKey) return key === 's' ? 'saveAs' : null;
    return WITH_MOD[key] ?? null;
  }
  if (event.key === '?' && !takesText(event.target)) return 'shortcuts';
  return null;
}

/**
 * The one place app commands arrive: key presses (in both builds) and the desktop menu's `app:command` events.
 * Key presses are left alone while a dialog is open, which owns the keyboard then.
 */
export function useAppCommands(run: (command: AppCommand) => void): void {
  const api = useApi();
  const runRef = useRef(run);
  useEffect(() => {
    runRef.current = run;
  }, [run]);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      const command = commandForKey(event);
      if (!command) return;
      if (document.querySelector('[aria-modal="true"]')) return;
      event.preventDefault();
      runRef.current(command);
    };
    window.addEventListener('keydown', onKeyDown);
    const off = api.on('app:command', ({ command }) => runRef.current(command));
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      off();
    };
  }, [api]);
}
