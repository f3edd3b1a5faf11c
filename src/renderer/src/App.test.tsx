import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from './App';
import { setLocale } from './i18n';
import { createFakeApi } from './testing/fake-api';
import { renderApp } from './testing/render';

afterEach(() => {
  cleanup();
  setLocale('en');
});

function memoryStorage() {
  const data = new Map<string, string>();
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

async function renderAppWith(problems: string[] = [], storage = memoryStorage()) {
  const api = createFakeApi({
    'hosts:list': () => [],
    'prompts:pending': () => [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/tmp/d', problems }),
  });
  return { ...(await renderApp(api, storage)), storage };
}

// A page other than Hosts is imported when first opened; on a busy machine transforming its modules takes seconds.
const PAGE_LOAD = { timeout: 15_000 };

describe('App', () => {
  it('explains that no core is connected when there is no transport', () => {
    render(<App api={null} />);
    expect(screen.getByRole('heading', { name: 'Not connected to a Servelab core' })).toBeTruthy();
  });

  it('shows Hosts as the current page, and Studies as a page of its own', async () => {
    const { api } = await renderAppWith();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(nav).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Hosts' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('heading', { name: /^Hosts/, level: 1 })).toBeTruthy();
    api.handle('studies:examples', () => []);
    api.handle('studies:recent', () => []);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Studies' }));
    });
    expect(screen.getByRole('button', { name: 'Studies' }).getAttribute('aria-current')).toBe('page');
    // The pages other than Hosts load on demand.
    expect(await screen.findByRole('heading', { name: 'Studies', level: 1 }, PAGE_LOAD)).toBeTruthy();
  });

  it('opens the Engines page from the navigation', async () => {
    await renderAppWith();
    fireEvent.click(screen.getByRole('button', { name: 'Engines' }));
    expect(screen.getByRole('button', { name: 'Engines' }).getAttribute('aria-current')).toBe('page');
    // Fetched when first opened: a loading line in the page's place meanwhile.
    expect(screen.getByText('Loading the page…').getAttribute('role')).toBe('status');
    expect(await screen.findByRole('heading', { name: 'Engines', level: 1 }, PAGE_LOAD)).toBeTruthy();
    expect(screen.queryByText('Loading the page…')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Hosts' }));
    expect(screen.getByRole('heading', { name: /^Hosts/, level: 1 })).toBeTruthy();
  });

  it('opens the Results page from the navigation', async () => {
    const { api } = await renderAppWith();
    api.handle('results:list', () => []);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Results' }));
    });
    expect(screen.getByRole('button', { name: 'Results' }).getAttribute('aria-current')).toBe('page');
    expect(await screen.findByRole('heading', { name: 'Results', level: 1 }, PAGE_LOAD)).toBeTruthy();
    expect(await screen.findByText('No results yet')).toBeTruthy();
  });

  it('toggles the theme, applies it to the document and remembers it', async () => {
    const { storage } = await renderAppWith();
    expect(document.documentElement.dataset.theme).toBe('light');
    fireEvent.click(screen.getByRole('button', { name: 'Switch to dark theme' }));
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(storage.data.get('servelab.theme')).toBe('dark');
    expect(screen.getByRole('button', { name: 'Switch to light theme' })).toBeTruthy();
  });

  it('switches the whole UI to Turkish from the language picker, and starts in Turkish next time', async () => {
    const { storage } = await renderAppWith();
    const picker = screen.getByRole('combobox', { name: 'Language' });
    expect(screen.getByRole('option', { name: 'English' })).toBeTruthy();
    expect(screen.getByRole('option', { name: 'Türkçe' })).toBeTruthy();
    fireEvent.change(picker, { target: { value: 'tr' } });

    expect(screen.getByRole('navigation', { name: 'Ana menü' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Ana makineler' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('button', { name: 'Motorlar' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sonuçlar' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: /^Ana makineler/, level: 1 })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Koyu temaya geç' })).toBeTruthy();
    const turkishPicker = screen.getByRole('combobox', { name: 'Dil' }) as HTMLSelectElement;
    expect(turkishPicker.value).toBe('tr');
    expect(document.activeElement).toBe(turkishPicker);
    expect(document.documentElement.lang).toBe('tr');
    expect(storage.data.get('servelab.locale')).toBe('tr');

    cleanup();
    setLocale('en');
    await renderAppWith([], storage);
    expect(screen.getByRole('button', { name: 'Ana makineler' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Hosts' })).toBeNull();
    expect(document.documentElement.lang).toBe('tr');

    fireEvent.change(screen.getByRole('combobox', { name: 'Dil' }), { target: { value: 'en' } });
    expect(screen.getByRole('button', { name: 'Hosts' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('en');
    expect(storage.data.get('servelab.locale')).toBe('en');
  });

  it('ignores a stored language that has no file', async () => {
    const storage = memoryStorage();
    storage.setItem('servelab.locale', 'xx');
    await renderAppWith([], storage);
    expect(screen.getByRole('button', { name: 'Hosts' })).toBeTruthy();
  });

  it('shows the core version and warns while reconnecting', async () => {
    const { api } = await renderAppWith();
    expect(screen.getByText('v0.1.0')).toBeTruthy();
    act(() => api.setStatus('reconnecting'));
    expect(screen.getByText('Lost the connection to the Servelab core. Reconnecting…')).toBeTruthy();
    act(() => api.setStatus('open'));
    expect(screen.queryByText(/Lost the connection/)).toBeNull();
  });

  it('shows the problems the core left for the user in a banner', async () => {
    await renderAppWith(['hosts.json is not valid JSON; it was left untouched and no hosts are loaded. Fix or move /tmp/d/hosts.json.']);
    const banner = screen.getByRole('alert');
    expect(banner.textContent).toContain('Servelab found a problem it left for you to fix');
    expect(banner.textContent).toContain('hosts.json is not valid JSON');
  });

  it('shows no problems banner when there are none', async () => {
    await renderAppWith();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
