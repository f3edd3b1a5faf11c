// Commands of the app shell that the desktop menu sends to the renderer (`app:command`); the renderer's own
// keyboard shortcuts run the same commands, so both builds behave alike.
import { z } from 'zod';

export const APP_COMMANDS = [
  'newStudy',
  'open',
  'openGuide',
  'save',
  'saveAs',
  'export',
  'page:hosts',
  'page:engines',
  'page:studies',
  'page:results',
  'shortcuts',
] as const;
export type AppCommand = (typeof APP_COMMANDS)[number];

export const APP_EVENTS = {
  /** A menu item was chosen in the desktop app; sent from main to the focused window only. */
  'app:command': z.object({ command: z.enum(APP_COMMANDS) }),
  /** The system asked to open projects (a double-click, the command line, a second launch): `app:openRequests` has them. */
  'app:openRequested': z.object({}),
} as const;
