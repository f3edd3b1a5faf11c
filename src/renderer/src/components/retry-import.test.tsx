import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PageErrorBoundary } from './PageErrorBoundary';
import { lazyPage, retryImport } from './retry-import';

afterEach(cleanup);

// What Chromium rejects a dynamic import with when the fetch of the chunk is aborted.
const aborted = () => new TypeError('Failed to fetch dynamically imported module: http://127.0.0.1/assets/EnginesPage.js');

describe('retryImport', () => {
  it('fetches again after each failure and returns the first success', async () => {
    const load = vi.fn().mockRejectedValueOnce(aborted()).mockRejectedValueOnce(aborted()).mockResolvedValue('module');
    await expect(retryImport(load, [1, 1])).resolves.toBe('module');
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('gives up after the last delay with the last failure', async () => {
    const load = vi.fn().mockRejectedValue(aborted());
    await expect(retryImport(load, [1, 1])).rejects.toThrow(/Failed to fetch dynamically imported module/);
    expect(load).toHaveBeenCalledTimes(3);
  });
});

describe('lazyPage under PageErrorBoundary', () => {
  function Engines({ note }: { note: string }) {
    return <h1>Engines {note}</h1>;
  }

  it('shows the page once its chunk loads after a failed fetch', async () => {
    const load = vi.fn().mockRejectedValueOnce(aborted()).mockResolvedValue(Engines);
    const Page = lazyPage<{ note: string }>(load, [1]);
    render(
      <PageErrorBoundary onRetry={() => Page.retry()}>
        <Suspense fallback={<p>loading</p>}>
          <Page note="ready" />
        </Suspense>
      </PageErrorBoundary>,
    );
    expect(await screen.findByRole('heading', { name: 'Engines ready' })).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('says what failed when every fetch fails, and Try again fetches anew instead of keeping the failure', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let online = false;
    const load = vi.fn(() => (online ? Promise.resolve(Engines) : Promise.reject(aborted())));
    const Page = lazyPage<{ note: string }>(load, [1]);
    render(
      <PageErrorBoundary onRetry={() => Page.retry()}>
        <Suspense fallback={<p>loading</p>}>
          <Page note="back" />
        </Suspense>
      </PageErrorBoundary>,
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This page could not be shown.');
    expect(alert.textContent).toContain('Failed to fetch dynamically imported module');
    expect(load).toHaveBeenCalledTimes(2);

    online = true;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Engines back' })).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(3);
    vi.restoreAllMocks();
  });
});
