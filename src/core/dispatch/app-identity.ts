export const APP_NAME = 'Servelab';
// Replaced at build time from package.json; the fallback keeps unit tests independent of the build.
export const APP_VERSION: string = typeof __SERVELAB_VERSION__ === 'string' ? __SERVELAB_VERSION__ : '0.0.0-dev';
