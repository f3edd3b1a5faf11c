import type { ErrorInfo } from '../../../shared/contract';
import type { AddHostInput, Host, HostKeyInfo, HostStateEvent } from '../../../shared/model/host';
import type { Inventory } from '../../../shared/model/inventory';

/** The outcome of the last inventory read the user started for one host. */
export interface HostRequest {
  loading: boolean;
  error: ErrorInfo | null;
}

/** An unknown host key shown to the user, waiting for accept or cancel. */
export interface HostKeyPrompt {
  hostId: string;
  key: HostKeyInfo;
  accepting: boolean;
  error: ErrorInfo | null;
}

export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'failed';

export interface HostsSlice {
  /** As the core last reported them (hosts:list, hosts:changed): the core owns the list. */
  hosts: Host[];
  hostsLoad: { status: LoadStatus; error: ErrorInfo | null };
  /** Latest hosts:state event per host id. */
  connectionByHost: Record<string, HostStateEvent>;
  inventoryByHost: Record<string, Inventory>;
  requestByHost: Record<string, HostRequest>;
  hostKeyPrompt: HostKeyPrompt | null;

  loadHosts(): Promise<void>;
  /** Resolves to the stored host; throws the core's ServelabError (BAD_INPUT carries field issues). */
  addHost(input: AddHostInput): Promise<Host>;
  /** Throws the core's ServelabError when the host could not be removed. */
  removeHost(hostId: string): Promise<void>;
  readInventory(hostId: string): Promise<void>;
  acceptHostKey(): Promise<void>;
  dismissHostKeyPrompt(): void;
  applyHostsChanged(hosts: Host[]): void;
  applyHostState(event: HostStateEvent): void;
}

export type Theme = 'light' | 'dark';

export interface UiSlice {
  theme: Theme;
  setTheme(theme: Theme): void;
  toggleTheme(): void;
}

export type AppState = HostsSlice & UiSlice;
