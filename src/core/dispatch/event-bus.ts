import type { EventMessage, EventName, EventPayload } from '../../shared/contract';

export type EventListener = (message: EventMessage) => void;

/** Typed fan-out of core events to every attached transport (IPC windows, WebSocket clients, CLI). */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  emit<N extends EventName>(name: N, payload: EventPayload<N>): void {
    const message = { name, payload } as EventMessage;
    for (const listener of [...this.listeners]) {
      try {
        listener(message);
      } catch {
        // One broken subscriber (a closed socket, a destroyed window) must not starve the others.
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
