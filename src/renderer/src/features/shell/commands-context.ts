import { createContext, useContext } from 'react';
import type { AppCommand } from '../../../../shared/contract';

/** Runs an app command (the same ones the menu and the shortcuts run); provided by the app shell. */
export const CommandsContext = createContext<((command: AppCommand) => void) | null>(null);

/** The shell's command runner, or null outside the shell (a page rendered on its own). */
export function useRunCommand(): ((command: AppCommand) => void) | null {
  return useContext(CommandsContext);
}
