import { describe, expect, it, vi } from 'vitest';
import { buildBridge, type IpcLike } from './build-bridge';
import { CALL_NAMES, EVENT_CHANNEL, EVENT_NAMES, splitCallName } from '../shared/contract/channels';

function fakeIpc() {
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const ipc: IpcLike & { emit(channel: string, message: unknown): void; count(channel: string): number } = {
    invoke: vi.fn(async (channel: string, input: unknown) => ({ ok: true, data: { channel, input } })),
    on(channel, listener) {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
    },
    removeListener(channel, listener) {
      listeners.get(channel)?.delete(listener);
    },
    emit(channel, message) {
      for (const l of listeners.get(channel) ?? []) l({ sender: 'ipc-event-object' }, message);
    },
    count(channel) {
      return listeners.get(channel)?.size ?? 0;
    },
  };
  return ipc;
}

describe('buildBridge', () => {
  it('exposes exactly one function per contract call, grouped by domain, plus on()', () => {
    const bridge = buildBridge(fakeIpc());
    const expected: Record<string, string[]> = {};
    for (const name of CALL_NAMES) {
      const { domain, action } = splitCallName(name);
      (expected[domain] ??= []).push(action);
    }
    expect(Object.keys(bridge).sort()).toEqual([...Object.keys(expected), 'on'].sort());
    for (const [domain, actions] of Object.entries(expected)) {
      const group = bridge[domain] as Record<string, unknown>;
      expect(Object.keys(group).sort()).toEqual([...actions].sort());
      for (const action of actions) expect(typeof group[action]).toBe('function');
    }
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('invokes the channel named after the call and nothing else', async () => {
    const ipc = fakeIpc();
    const bridge = buildBridge(ipc) as { hosts: { inventory(input: unknown): Promise<unknown> } };
    await bridge.hosts.inventory({ hostId: 'h1' });
    expect(ipc.invoke).toHaveBeenCalledWith('hosts:inventory', { hostId: 'h1' });
  });

  it('delivers only the payload of the subscribed event, never the IPC event object', () => {
    const ipc = fakeIpc();
    const bridge = buildBridge(ipc) as { on(name: string, cb: (p: unknown) => void): () => void };
    const got: unknown[] = [];
    const off = bridge.on(EVENT_NAMES[0], (payload) => got.push(payload));
    ipc.emit(EVENT_CHANNEL, { name: EVENT_NAMES[0], payload: { a: 1 } });
    ipc.emit(EVENT_CHANNEL, { name: 'something:else', payload: { b: 2 } });
    expect(got).toEqual([{ a: 1 }]);
    off();
    expect(ipc.count(EVENT_CHANNEL)).toBe(0);
  });

  it('refuses to subscribe to a name outside the contract', () => {
    const bridge = buildBridge(fakeIpc()) as { on(name: string, cb: () => void): () => void };
    expect(() => bridge.on('ipc:anything', () => {})).toThrow(/Unknown event/);
  });
});
