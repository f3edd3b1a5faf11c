import { describe, expect, it } from 'vitest';
import en from './en';
import { AVAILABLE_LOCALES, interpolate, t } from '.';

describe('i18n', () => {
  it('fills placeholders from params', () => {
    expect(t('host.connecting', { target: 'gpu-1:22' })).toBe('Connecting to gpu-1:22…');
    expect(t('inventory.gpuIndex', { index: 0 })).toBe('GPU 0');
  });

  it('returns plain messages without params', () => {
    expect(t('hostKey.title')).toBe('Unknown host key');
  });

  it('leaves an unknown placeholder visible instead of dropping it', () => {
    expect(interpolate('a {x} b {y}', { x: 1 })).toBe('a 1 b {y}');
  });

  it('finds the language files beside it', () => {
    expect(AVAILABLE_LOCALES).toContain('en');
  });

  it('has no empty message', () => {
    for (const [key, value] of Object.entries(en)) expect(value, key).not.toBe('');
  });
});
