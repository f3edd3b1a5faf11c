import { createElement, type ComponentType } from 'react';

/** Waits between attempts: a chunk fetch aborted by a network change or a busy server usually works a moment later. */
export const IMPORT_RETRY_DELAYS_MS: readonly number[] = [250, 1000];

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `load` (a dynamic import), again after each delay while it fails; rejects with the last failure. Browsers no
 * longer cache a failed module fetch, so importing the same specifier again fetches it again.
 */
export async function retryImport<T>(load: () => Promise<T>, delaysMs: readonly number[] = IMPORT_RETRY_DELAYS_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (attempt >= delaysMs.length) throw error;
      await pause(delaysMs[attempt] ?? 0);
    }
  }
}

/** A page component fetched on first render; `retry()` lets the next render fetch it again after a failure. */
export type LazyPage<P extends object> = ComponentType<P> & { retry(): void };

/**
 * React.lazy keeps a failed import for good, so one aborted chunk fetch would leave the page broken until a reload.
 * This suspends the same way while loading, retries a failed fetch ({@link retryImport}), and once it still fails
 * throws the error for an error boundary, which can call `retry()` and render again.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>, delaysMs?: readonly number[]): LazyPage<P> {
  let component: ComponentType<P> | null = null;
  let failure: { error: unknown } | null = null;
  let pending: Promise<void> | null = null;
  function Page(props: P) {
    if (component) return createElement(component, props);
    if (failure) throw failure.error;
    pending ??= retryImport(load, delaysMs).then(
      (loaded) => {
        component = loaded;
        pending = null;
      },
      (error: unknown) => {
        failure = { error };
        pending = null;
      },
    );
    // Suspense waits on this promise and renders again once it settles.
    throw pending;
  }
  Page.retry = () => {
    failure = null;
  };
  return Page as LazyPage<P>;
}
