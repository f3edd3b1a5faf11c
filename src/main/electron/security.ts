import type { Session, WebContents } from 'electron';

/** Only plain web pages may be handed to the user's browser; never file:, javascript: or custom schemes. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Locks a web contents to the app's page: navigation away is blocked, new windows are denied (http(s) links
 * open in the user's browser instead), and webviews cannot be attached (checklist items 12–14).
 */
export function restrictNavigation(
  contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>,
  isAppUrl: (url: string) => boolean,
  openExternal: (url: string) => void,
): void {
  contents.on('will-navigate', (event: { preventDefault(): void }, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event: { preventDefault(): void }, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event: { preventDefault(): void }) => {
    event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) openExternal(url);
    return { action: 'deny' };
  });
}

/** The app needs no camera, microphone, notifications API, geolocation…: every permission is refused. */
export function denyAllPermissions(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}
