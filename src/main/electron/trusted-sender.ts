/** Where the app's own renderer is loaded from; anything else is not allowed to call the core. */
export interface RendererLocation {
  /** `app://servelab/index.html` (app-protocol.ts): the built renderer. */
  appIndexUrl?: string;
  /** The electron-vite dev server, only during `npm run dev`. */
  devServerUrl?: string;
}

/** True when a frame URL is the app's own renderer page (query and fragment ignored). */
export function isAppRendererUrl(url: string, location: RendererLocation): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (location.appIndexUrl) {
    const expected = new URL(location.appIndexUrl);
    return parsed.protocol === expected.protocol && parsed.host === expected.host && parsed.pathname === expected.pathname;
  }
  if (location.devServerUrl && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) {
    return parsed.origin === new URL(location.devServerUrl).origin;
  }
  return false;
}

/** The shape of Electron's senderFrame that the check needs. */
export interface FrameLike {
  url: string;
  parent: unknown;
}

/** IPC is accepted only from the top frame of the app's own page: never from an iframe or a navigated-away page. */
export function isTrustedFrame(frame: FrameLike | null | undefined, location: RendererLocation): boolean {
  if (!frame) return false;
  if (frame.parent !== null) return false;
  return isAppRendererUrl(frame.url, location);
}
