import type { Session, WebContents } from 'electron';

/**
 * Locks a web contents to the app's page: navigation away is blocked, new windows are denied, and webviews
 * cannot be attached (checklist items 12–14). Nothing is handed to `shell.openExternal`: the renderer has no
 * links, and a page that could open any URL in the user's browser would have a way to send data out that CSP
 * does not cover. Add an explicit host allow-list here if the app ever links to its docs.
 */
export function restrictNavigation(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, isAppUrl: (url: string) => boolean): void {
  contents.on('will-navigate', (event: { preventDefault(): void }, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event: { preventDefault(): void }, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event: { preventDefault(): void }) => {
    event.preventDefault();
  });
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** The app needs no camera, microphone, notifications API, geolocation…: every permission is refused. */
export function denyAllPermissions(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}
