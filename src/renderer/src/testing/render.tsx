import { act, render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { App } from '../App';
import { ApiProvider } from '../api/context';
import { createAppStore, StoreProvider, type AppStore } from '../store';
import type { ThemeStorage } from '../store/ui-slice';
import { createFakeApi, type FakeApi } from './fake-api';

/** Renders `ui` inside the providers the app uses, with a fresh store over `api`. */
export function renderWithStore(ui: ReactElement, api: FakeApi = createFakeApi()): { api: FakeApi; store: AppStore } & ReturnType<typeof render> {
  const store = createAppStore(api, { storage: null, prefersDark: false });
  const result = render(
    <ApiProvider api={api}>
      <StoreProvider store={store}>{ui}</StoreProvider>
    </ApiProvider>,
  );
  return { api, store, ...result };
}

/** Renders the whole app over `api` with a fresh store, and lets its first calls settle. */
export async function renderApp(api: FakeApi, storage: ThemeStorage | null = null): Promise<{ api: FakeApi; store: AppStore }> {
  const store = createAppStore(api, { storage, prefersDark: false });
  await act(async () => {
    render(<App api={api} store={store} />);
  });
  return { api, store };
}
