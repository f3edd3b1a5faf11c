import { splitCallName, type CallName, type Envelope, type EventName, type ServelabBridge } from '../../../shared/contract';
import { t } from '../i18n';
import type { Transport } from './transport';

type LooseBridge = Record<string, Record<string, ((input: unknown) => Promise<Envelope<unknown>>) | undefined> | undefined>;

/** Calls through `window.servelab`, the bridge the preload exposes in the desktop app. */
export function createIpcTransport(bridge: ServelabBridge): Transport {
  const groups = bridge as unknown as LooseBridge;
  return {
    kind: 'ipc',
    async invoke(name: CallName, input: unknown) {
      const { domain, action } = splitCallName(name);
      const fn = groups[domain]?.[action];
      if (typeof fn !== 'function') {
        return { ok: false, error: { code: 'UNKNOWN_CALL', message: t('api.unknownCall', { name }) } };
      }
      return fn(input);
    },
    on(name: EventName, listener: (payload: unknown) => void) {
      return bridge.on(name, listener as never);
    },
    // IPC lives as long as the window: there is no connection to lose.
    status: () => 'open',
    closedReason: () => null,
    onStatus: () => () => {},
    close: () => {},
  };
}
