import { describe, expect, it } from 'vitest';
import { isAppRendererUrl, isTrustedFrame } from './trusted-sender';

const fileIndexUrl = 'file:///opt/Servelab/resources/app.asar/out/renderer/index.html';

describe('isAppRendererUrl', () => {
  it('accepts the built index page with any fragment or query', () => {
    expect(isAppRendererUrl(fileIndexUrl, { fileIndexUrl })).toBe(true);
    expect(isAppRendererUrl(`${fileIndexUrl}#/hosts`, { fileIndexUrl })).toBe(true);
  });
  it('refuses other files, other schemes and garbage', () => {
    expect(isAppRendererUrl('file:///opt/Servelab/other.html', { fileIndexUrl })).toBe(false);
    expect(isAppRendererUrl('https://example.com/', { fileIndexUrl })).toBe(false);
    expect(isAppRendererUrl('not a url', { fileIndexUrl })).toBe(false);
  });
  it('in development accepts only the dev server origin', () => {
    const devServerUrl = 'http://localhost:5173/';
    expect(isAppRendererUrl('http://localhost:5173/#/x', { devServerUrl })).toBe(true);
    expect(isAppRendererUrl('http://localhost:5174/', { devServerUrl })).toBe(false);
    expect(isAppRendererUrl(fileIndexUrl, { devServerUrl })).toBe(false);
  });
});

describe('isTrustedFrame', () => {
  it('needs a top frame of the app page', () => {
    expect(isTrustedFrame({ url: fileIndexUrl, parent: null }, { fileIndexUrl })).toBe(true);
    expect(isTrustedFrame({ url: fileIndexUrl, parent: {} }, { fileIndexUrl })).toBe(false);
    expect(isTrustedFrame(null, { fileIndexUrl })).toBe(false);
  });
});
