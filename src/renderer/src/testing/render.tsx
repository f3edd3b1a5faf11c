import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { ApiProvider } from '../api/context';
import { createAppStore, StoreProvider, type AppStore } from '../store';
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
