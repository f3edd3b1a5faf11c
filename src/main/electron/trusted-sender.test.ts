import { describe, expect, it } from 'vitest';
import { isAppRendererUrl, isTrustedFrame } from './trusted-sender';

const appIndexUrl = 'app://servelab/index.html';

describe('isAppRendererUrl', () => {
  it('accepts the built index page with any fragment or query', () => {
    expect(isAppRendererUrl(appIndexUrl, { appIndexUrl })).toBe(true);
    expect(isAppRendererUrl(`${appIndexUrl}#/hosts`, { appIndexUrl })).toBe(true);
  });
  it('refuses other app:// pages and hosts, file:// (even out/renderer/index.html), other schemes and garbage', () => {
    expect(isAppRendererUrl('app://servelab/other.html', { appIndexUrl })).toBe(false);
    expect(isAppRendererUrl('app://evil/index.html', { appIndexUrl })).toBe(false);
    expect(isAppRendererUrl('file:///opt/Servelab/resources/app.asar/out/renderer/index.html', { appIndexUrl })).toBe(false);
    expect(isAppRendererUrl('file:///index.html', { appIndexUrl })).toBe(false);
    expect(isAppRendererUrl('https://example.com/', { appIndexUrl })).toBe(false);
    expect(isAppRendererUrl('not a url', { appIndexUrl })).toBe(false);
  });
  it('in development accepts only the dev server origin', () => {
    const devServerUrl = 'http://localhost:5173/';
    expect(isAppRendererUrl('http://localhost:5173/#/x', { devServerUrl })).toBe(true);
    expect(isAppRendererUrl('http://localhost:5174/', { devServerUrl })).toBe(false);
    expect(isAppRendererUrl(appIndexUrl, { devServerUrl })).toBe(false);
  });
});

describe('isTrustedFrame', () => {
  it('needs a top frame of the app page', () => {
    expect(isTrustedFrame({ url: appIndexUrl, parent: null }, { appIndexUrl })).toBe(true);
    expect(isTrustedFrame({ url: appIndexUrl, parent: {} }, { appIndexUrl })).toBe(false);
    expect(isTrustedFrame(null, { appIndexUrl })).toBe(false);
  });
});
