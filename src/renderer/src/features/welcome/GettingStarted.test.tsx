import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncStoreWithCore } from '../../store';
import { createFakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { GettingStarted, GUIDE_STORAGE_KEY } from './GettingStarted';

afterEach(cleanup);
beforeEach(() => window.localStorage.removeItem(GUIDE_STORAGE_KEY));

async function renderGuide(hosts = [makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab (simulated H100 box)' })]) {
  const api = createFakeApi({ 'hosts:list': () => hosts, 'prompts:pending': () => [] });
  const rendered = renderWithStore(<GettingStarted />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  return rendered;
}

describe('Getting started guide', () => {
  it('walks from the demo lab to the exported report, and its button opens Studies', async () => {
    const { store } = await renderGuide();
    const guide = screen.getByRole('region', { name: 'Getting started' });
    const steps = guide.querySelectorAll('.guide-step-title');
    expect([...steps].map((s) => s.textContent)).toEqual([
      'Look at the demo lab',
      'Run the example latency study',
      'Read the recommendation and compare',
      'Export the CSV and the report',
    ]);
    expect(guide.textContent).toContain('simulated H100 box');
    fireEvent.click(screen.getByRole('button', { name: 'Try the example study' }));
    expect(store.getState().page).toBe('studies');
  });

  it('without the demo lab, says how to bring it back', async () => {
    await renderGuide([makeHost()]);
    expect(screen.getByRole('region', { name: 'Getting started' }).textContent).toContain('Restore the demo lab');
  });

  it('stays hidden once dismissed, and comes back on request', async () => {
    await renderGuide();
    fireEvent.click(screen.getByRole('button', { name: 'Hide the guide' }));
    expect(screen.queryByRole('region', { name: 'Getting started' })).toBeNull();
    expect(window.localStorage.getItem(GUIDE_STORAGE_KEY)).toBe('1');
    cleanup();
    await renderGuide();
    expect(screen.queryByRole('region', { name: 'Getting started' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Getting started' }));
    expect(screen.getByRole('region', { name: 'Getting started' })).toBeTruthy();
    expect(window.localStorage.getItem(GUIDE_STORAGE_KEY)).toBeNull();
  });
});
