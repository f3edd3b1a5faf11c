// The Electron entry point, run against a mocked `electron` module (no Electron binary is needed):
// asserts the window's security switches, the navigation/permission lock-down and the IPC gate.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALL_NAMES, EVENT_CHANNEL } from '../../shared/contract';

const state = vi.hoisted(() => ({
  windows: [] as Array<{ options: Record<string, unknown>; loadFile: string[]; loadURL: string[] }>,
  handlers: new Map<string, (event: unknown, input: unknown) => Promise<unknown>>(),
  appEvents: new Map<string, (...args: unknown[]) => void>(),
  permissionRequest: null as null | ((wc: unknown, permission: string, cb: (ok: boolean) => void) => void),
  permissionCheck: null as null | (() => boolean),
  enableSandbox: 0,
  opened: [] as string[],
  userData: '',
  saveDialogs: [] as Array<Record<string, unknown>>,
  menuTemplate: [] as Array<{ label?: string; submenu?: Array<{ label?: string; click?: () => void }> }>,
  focused: null as unknown,
  messageBoxes: [] as Array<Record<string, unknown>>,
  messageBoxChoice: 1,
  privilegedSchemes: [] as Array<{ scheme: string; privileges: Record<string, unknown> }>,
  protocolHandlers: new Map<string, (request: { url: string }) => Promise<Response>>(),
  singleInstanceLocks: 0,
  restored: 0,
  shown: 0,
  focusedCalls: 0,
  recentDocuments: [] as string[],
  lockData: [] as unknown[],
}));

vi.mock('electron', () => {
  class BrowserWindow {
    static all: BrowserWindow[] = [];
    static getAllWindows() {
      return BrowserWindow.all;
    }
    static getFocusedWindow() {
      return state.focused;
    }
    record: { options: Record<string, unknown>; loadFile: string[]; loadURL: string[] };
    contentsListeners = new Map<string, (event: { preventDefault(): void }) => void>();
    webContents = {
      send: vi.fn(),
      on: (name: string, listener: (event: { preventDefault(): void }) => void) => this.contentsListeners.set(name, listener),
    };
    constructor(options: Record<string, unknown>) {
      this.record = { options, loadFile: [], loadURL: [] };
      state.windows.push(this.record);
      BrowserWindow.all.push(this);
    }
    once() {}
    isDestroyed() {
      return false;
    }
    isMinimized() {
      return true;
    }
    restore() {
      state.restored += 1;
    }
    show() {
      state.shown += 1;
    }
    focus() {
      state.focusedCalls += 1;
    }
    async loadFile(path: string) {
      this.record.loadFile.push(path);
    }
    async loadURL(url: string) {
      this.record.loadURL.push(url);
    }
  }
  return {
    app: {
      isPackaged: true,
      name: 'Servelab',
      enableSandbox: () => {
        state.enableSandbox += 1;
      },
      whenReady: () => Promise.resolve(),
      requestSingleInstanceLock: (data?: unknown) => {
        state.singleInstanceLocks += 1;
        state.lockData.push(data);
        return true;
      },
      getPath: () => state.userData,
      addRecentDocument: (path: string) => state.recentDocuments.push(path),
      on: (name: string, listener: (...args: unknown[]) => void) => state.appEvents.set(name, listener),
      quit: () => {},
      exit: () => {},
    },
    BrowserWindow,
    protocol: {
      registerSchemesAsPrivileged: (schemes: typeof state.privilegedSchemes) => state.privilegedSchemes.push(...schemes),
      handle: (scheme: string, handler: (request: { url: string }) => Promise<Response>) => state.protocolHandlers.set(scheme, handler),
    },
    ipcMain: {
      handle: (channel: string, listener: (event: unknown, input: unknown) => Promise<unknown>) => state.handlers.set(channel, listener),
      removeHandler: (channel: string) => state.handlers.delete(channel),
    },
    Menu: {
      setApplicationMenu: () => {},
      buildFromTemplate: (t: typeof state.menuTemplate) => {
        state.menuTemplate = t;
        return t;
      },
    },
    Notification: class {
      static isSupported() {
        return true;
      }
    },
    safeStorage: { isEncryptionAvailable: () => false, encryptString: () => Buffer.from(''), decryptString: () => '' },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: typeof state.permissionRequest) => {
          state.permissionRequest = h;
        },
        setPermissionCheckHandler: (h: typeof state.permissionCheck) => {
          state.permissionCheck = h;
        },
      },
    },
    shell: { openExternal: async (url: string) => void state.opened.push(url) },
    dialog: {
      showSaveDialog: async (...args: unknown[]) => {
        state.saveDialogs.push(args.at(-1) as Record<string, unknown>);
        return { canceled: false, filePath: '/home/u/report.html' };
      },
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
      showMessageBoxSync: (_win: unknown, options: Record<string, unknown>) => {
        state.messageBoxes.push(options);
        return state.messageBoxChoice;
      },
    },
  };
});

const APP_PAGE = 'app://servelab/index.html';
const env = process.env as Record<string, string | undefined>;
const savedRendererUrl = env.ELECTRON_RENDERER_URL;
const savedArgv = process.argv;
const processWithResources = process as NodeJS.Process & { resourcesPath?: string };
const savedResourcesPath = processWithResources.resourcesPath;
/** The project this launch was started with, as a double-click on Windows or Linux starts it. */
const LAUNCH_PROJECT = '/home/u/studies/launch.servelab';

beforeAll(async () => {
  state.userData = mkdtempSync(join(tmpdir(), 'servelab-electron-'));
  // A package's resources: the Node.js runtime the demo lab runs on ships there.
  const resources = join(state.userData, 'resources');
  mkdirSync(join(resources, 'node', 'bin'), { recursive: true });
  writeFileSync(join(resources, 'node', 'bin', 'node'), '');
  processWithResources.resourcesPath = resources;
  // An inherited dev-server URL must not be honoured outside `npm run dev`.
  env.ELECTRON_RENDERER_URL = 'http://localhost:5173';
  process.argv = ['/opt/Servelab/servelab', '--no-sandbox', LAUNCH_PROJECT];
  await import('../index');
  await vi.waitFor(() => expect(state.windows.length).toBe(1));
});

afterAll(() => {
  if (savedRendererUrl === undefined) delete env.ELECTRON_RENDERER_URL;
  else env.ELECTRON_RENDERER_URL = savedRendererUrl;
  process.argv = savedArgv;
  processWithResources.resourcesPath = savedResourcesPath;
});

afterAll(() => rmSync(state.userData, { recursive: true, force: true }));

describe('Electron main process', () => {
  it('turns the sandbox on for every renderer before the app is ready', () => {
    expect(state.enableSandbox).toBe(1);
  });

  it('creates the window with isolation, sandbox, no Node and the bundled CommonJS preload', () => {
    const prefs = state.windows[0]!.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(String(prefs.preload)).toMatch(/preload[\\/]index\.cjs$/);
  });

  it('loads the renderer from app://, not file:// and not an inherited dev-server URL (M3, L1)', () => {
    expect(state.windows[0]!.loadFile).toEqual([]);
    expect(state.windows[0]!.loadURL).toEqual([APP_PAGE]);
    expect(state.privilegedSchemes).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
    expect([...state.protocolHandlers.keys()]).toEqual(['app']);
  });

  it('serves app:// from out/renderer with the CSP header, and nothing outside it', async () => {
    const handler = state.protocolHandlers.get('app')!;
    const missing = await handler({ url: 'app://servelab/../../package.json' });
    expect(missing.status).toBe(404);
    const other = await handler({ url: 'app://elsewhere/index.html' });
    expect(other.status).toBe(404);
  });

  it('runs the demo lab’s simulated tools on the Node.js the package ships, never on Electron as Node (RunAsNode is off)', async () => {
    const own = { senderFrame: { url: APP_PAGE, parent: null } };
    // Reading the demo box writes its node shim first; the stand-in runtime here is an empty file, so the read fails.
    expect(await state.handlers.get('hosts:inventory')!(own, { hostId: 'demo-lab' })).toMatchObject({ ok: false });
    const shim = readFileSync(join(state.userData, 'demo-lab', 'bin', 'node'), 'utf8');
    expect(shim).toContain(`exec ${join(state.userData, 'resources', 'node', 'bin', 'node')} "$@"`);
    expect(shim).not.toContain('ELECTRON_RUN_AS_NODE');
  });

  it('has no DevTools in a packaged app', () => {
    const prefs = state.windows[0]!.options.webPreferences as Record<string, unknown>;
    expect(prefs.devTools).toBe(false);
  });

  it('holds the single-instance lock, and a second launch brings the window forward', () => {
    expect(state.singleInstanceLocks).toBe(1);
    const before = { restored: state.restored, shown: state.shown, focused: state.focusedCalls };
    state.appEvents.get('second-instance')!({}, ['servelab'], '/');
    expect(state.restored).toBe(before.restored + 1);
    expect(state.shown).toBe(before.shown + 1);
    expect(state.focusedCalls).toBe(before.focused + 1);
  });

  describe('projects the system asks to open', () => {
    const own = { senderFrame: { url: APP_PAGE, parent: null } };
    const takeRequests = async () => ((await state.handlers.get('app:openRequests')!(own, {})) as { data: { paths: string[] } }).data.paths;
    const window = async () => {
      const { BrowserWindow } = await import('electron');
      return (BrowserWindow as unknown as { all: Array<{ webContents: { send: ReturnType<typeof vi.fn> } }> }).all[0]!;
    };

    it('gives the window the project on its own command line, once', async () => {
      expect(await takeRequests()).toEqual([LAUNCH_PROJECT]);
      expect(await takeRequests()).toEqual([]);
    });

    it('hands the running window the project of a second launch, resolved against that launch’s folder, and brings it forward', async () => {
      const win = await window();
      win.webContents.send.mockClear();
      const shown = state.shown;
      state.appEvents.get('second-instance')!({}, ['C:\\Servelab\\Servelab.exe', '--allow-file-access-from-files', 'next.servelab'], '/home/u/lab');
      expect(state.shown).toBe(shown + 1);
      expect(win.webContents.send).toHaveBeenCalledWith(EVENT_CHANNEL, { name: 'app:openRequested', payload: {} });
      expect(await takeRequests()).toEqual(['/home/u/lab/next.servelab']);
    });

    it('sends its own projects with the lock, and takes a second launch’s from what it sent rather than from its argv', async () => {
      expect(state.lockData).toEqual([{ projects: [LAUNCH_PROJECT] }]);
      // Electron may reorder a second launch's argv and append switches; what the launch read itself is used.
      state.appEvents.get('second-instance')!({}, ['C:\\Servelab\\Servelab.exe', 'appended.servelab'], 'C:\\Users\\u', { projects: ['/home/u/handed.servelab'] });
      expect(await takeRequests()).toEqual(['/home/u/handed.servelab']);
    });

    it('takes macOS open-file events, keeping the default handling from running', async () => {
      let prevented = 0;
      state.appEvents.get('open-file')!({ preventDefault: () => void (prevented += 1) }, '/Users/u/Documents/finder.servelab');
      expect(prevented).toBe(1);
      expect(await takeRequests()).toEqual(['/Users/u/Documents/finder.servelab']);
    });

    it('opens a window for a project asked for while none is open (macOS runs on without windows)', async () => {
      const { BrowserWindow } = await import('electron');
      const all = (BrowserWindow as unknown as { all: unknown[] }).all;
      const kept = all.splice(0);
      try {
        state.appEvents.get('open-file')!({ preventDefault: () => {} }, '/Users/u/again.servelab');
        expect(all).toHaveLength(1);
        expect(state.windows.at(-1)!.loadURL).toEqual([APP_PAGE]);
        expect(await takeRequests()).toEqual(['/Users/u/again.servelab']);
      } finally {
        all.splice(0, all.length, ...kept);
      }
    });

    it('ignores what is not a project file', async () => {
      state.appEvents.get('second-instance')!({}, ['/opt/Servelab/servelab', 'notes.txt'], '/home/u');
      state.appEvents.get('open-file')!({ preventDefault: () => {} }, 'relative.servelab');
      expect(await takeRequests()).toEqual([]);
    });

    it('adds each project the window opened or created to the OS recent documents', async () => {
      const path = join(state.userData, 'from-example.servelab');
      const examples = (await state.handlers.get('studies:examples')!(own, {})) as { data: Array<{ path: string }> };
      const example = examples.data[0]!.path;
      expect(await state.handlers.get('studies:fromExample')!(own, { path, example })).toMatchObject({ ok: true });
      expect(await state.handlers.get('studies:open')!(own, { path })).toMatchObject({ ok: true });
      expect(await state.handlers.get('studies:open')!(own, { path: join(state.userData, 'missing.servelab') })).toMatchObject({ ok: false });
      expect(state.recentDocuments).toEqual([path, path]);
    });
  });

  it('refuses every permission request and check', () => {
    const answers: boolean[] = [];
    state.permissionRequest!({}, 'media', (ok) => answers.push(ok));
    state.permissionRequest!({}, 'notifications', (ok) => answers.push(ok));
    expect(answers).toEqual([false, false]);
    expect(state.permissionCheck!()).toBe(false);
  });

  it('blocks navigation away from the app, webviews and window.open', () => {
    const listeners = new Map<string, (event: { preventDefault(): void }, url: string) => void>();
    let openHandler: ((d: { url: string }) => { action: string }) | null = null;
    const contents = {
      on: (name: string, l: (event: { preventDefault(): void }, url: string) => void) => listeners.set(name, l),
      setWindowOpenHandler: (h: typeof openHandler) => {
        openHandler = h;
      },
    };
    state.appEvents.get('web-contents-created')!({}, contents);

    const prevented: string[] = [];
    const event = (tag: string) => ({ preventDefault: () => prevented.push(tag) });
    listeners.get('will-navigate')!(event('evil'), 'https://evil.example/');
    listeners.get('will-navigate')!(event('file'), 'file:///etc/passwd');
    listeners.get('will-navigate')!(event('own'), `${APP_PAGE}#/hosts`);
    listeners.get('will-navigate')!(event('dev'), 'http://localhost:5173/');
    listeners.get('will-attach-webview')!(event('webview'), '');
    expect(prevented).toEqual(['evil', 'file', 'dev', 'webview']);

    // The renderer has no links: nothing is handed to the user's browser, so a page cannot send data out that way.
    expect(openHandler!({ url: 'https://docs.vllm.ai/' })).toEqual({ action: 'deny' });
    expect(openHandler!({ url: 'https://attacker.example/?d=secret' })).toEqual({ action: 'deny' });
    expect(openHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(state.opened).toEqual([]);
  });

  it('registers one IPC handler per contract call and nothing else', () => {
    expect([...state.handlers.keys()].sort()).toEqual([...CALL_NAMES].sort());
  });

  it('answers the app’s own top frame and refuses other senders with FORBIDDEN_SENDER', async () => {
    const handler = state.handlers.get('app:info')!;
    const own = { senderFrame: { url: APP_PAGE, parent: null } };
    expect(await handler(own, {})).toMatchObject({ ok: true, data: { name: 'Servelab' } });

    const forbidden = [
      { senderFrame: null },
      { senderFrame: { url: 'https://evil.example/', parent: null } },
      { senderFrame: { url: APP_PAGE, parent: { url: 'x' } } },
      { senderFrame: { url: 'file:///tmp/other.html', parent: null } },
      { senderFrame: { url: 'app://servelab/other.html', parent: null } },
      { senderFrame: { url: 'http://localhost:5173/', parent: null } },
    ];
    for (const event of forbidden) {
      expect(await handler(event, {})).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } });
    }
  });

  it('reports in app:info that saved secrets last for this session only when there is no keychain', async () => {
    const info = (await state.handlers.get('app:info')!({ senderFrame: { url: APP_PAGE, parent: null } }, {})) as { data: { problems: string[] } };
    expect(info.data.problems).toEqual([expect.stringMatching(/No OS keychain.*this session only/)]);
  });

  it('validates input behind the sender gate', async () => {
    const handler = state.handlers.get('hosts:add')!;
    const own = { senderFrame: { url: APP_PAGE, parent: null } };
    const result = (await handler(own, { address: '', user: 'x', auth: { method: 'key', identityFile: 'k' } })) as {
      ok: boolean;
      error?: { code: string; issues?: { path: string }[] };
    };
    expect(result.ok).toBe(false);
    expect(result.error!.code).toBe('BAD_INPUT');
    expect(result.error!.issues!.map((i) => i.path)).toContain('address');
  });

  it('answers file dialogs with the native ones: a chosen path, or null when cancelled', async () => {
    const own = { senderFrame: { url: APP_PAGE, parent: null } };
    const saved = await state.handlers.get('dialogs:saveFile')!(own, { title: 'Export report', defaultName: 'study.html', extensions: ['html'] });
    expect(saved).toEqual({ ok: true, data: { path: '/home/u/report.html', saveHandle: expect.any(String) } });
    expect(state.saveDialogs.at(-1)).toMatchObject({ title: 'Export report', defaultPath: 'study.html', filters: [{ extensions: ['html'] }] });
    expect(await state.handlers.get('dialogs:openFile')!(own, { title: 'Open project', extensions: ['servelab'] })).toEqual({ ok: true, data: { path: null } });
  });

  it('asks natively before a page with unsaved changes unloads: Leave lets it go, Stay keeps it', async () => {
    const { BrowserWindow } = await import('electron');
    const win = (BrowserWindow as unknown as { all: Array<{ contentsListeners: Map<string, (event: { preventDefault(): void }) => void> }> }).all[0]!;
    const listener = win.contentsListeners.get('will-prevent-unload')!;
    expect(listener).toBeTypeOf('function');
    let prevented = 0;
    const event = { preventDefault: () => void (prevented += 1) };
    state.messageBoxChoice = 1;
    listener(event);
    expect(prevented).toBe(0);
    state.messageBoxChoice = 0;
    listener(event);
    expect(prevented).toBe(1);
    expect(state.messageBoxes.at(-1)).toMatchObject({ buttons: ['Leave', 'Stay'], cancelId: 1 });
  });

  it('sends a menu command to the focused window as app:command, and nowhere without one', async () => {
    const { BrowserWindow } = await import('electron');
    const win = (BrowserWindow as unknown as { all: Array<{ webContents: { send: ReturnType<typeof vi.fn> } }> }).all[0]!;
    const saveAs = state.menuTemplate.find((m) => m.label === 'File')!.submenu!.find((i) => i.label === 'Save as…')!;
    state.focused = null;
    saveAs.click!();
    expect(win.webContents.send).not.toHaveBeenCalledWith(EVENT_CHANNEL, expect.objectContaining({ name: 'app:command' }));
    state.focused = win;
    saveAs.click!();
    expect(win.webContents.send).toHaveBeenCalledWith(EVENT_CHANNEL, { name: 'app:command', payload: { command: 'saveAs' } });
    state.focused = null;
  });
});
