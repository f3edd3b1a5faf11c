// The building blocks first: every feature's own sheet, imported by its components, comes after them and wins a tie.
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApiClient, pickTransport } from './api';
import { App, applyLocale, applyTheme } from './App';
import { browserStorage, initialLocale, initialTheme, systemPrefersDark } from './store';

// Theme and language first, so the page never flashes the other theme or language while React starts.
applyTheme(initialTheme(browserStorage(), systemPrefersDark()));
applyLocale(initialLocale(browserStorage()));

const transport = pickTransport();
const api = transport ? createApiClient(transport) : null;

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App api={api} />
  </StrictMode>,
);
