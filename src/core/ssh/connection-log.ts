/**
 * What happened while connecting to each host, in words a user understands ("Trying key ~/.ssh/id_ed25519…"),
 * for the host's details pane. Bounded per host; messages never hold secrets (callers only ever pass
 * descriptions of what they did, never what was typed).
 */

export type ConnectionLogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface ConnectionLogEntry {
  /** Milliseconds since the epoch. */
  time: number;
  level: ConnectionLogLevel;
  message: string;
}

export type ConnectionLogListener = (hostId: string, entry: ConnectionLogEntry) => void;

export interface ConnectionLogOptions {
  /** Entries kept per host; older ones are dropped first. */
  capacity?: number;
  now?: () => number;
}

/** Writes to one host's log; what connection code is handed so it cannot write elsewhere. */
export type ConnectionLogWriter = (level: ConnectionLogLevel, message: string) => void;

const DEFAULT_CAPACITY = 500;

/** A fixed-size ring of entries: O(1) append, oldest overwritten. */
class Ring {
  private readonly items: (ConnectionLogEntry | undefined)[];
  private start = 0;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.items = new Array<ConnectionLogEntry | undefined>(capacity);
  }

  push(entry: ConnectionLogEntry): void {
    if (this.size < this.capacity) {
      this.items[(this.start + this.size) % this.capacity] = entry;
      this.size++;
    } else {
      this.items[this.start] = entry;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  toArray(): ConnectionLogEntry[] {
    const out: ConnectionLogEntry[] = [];
    for (let i = 0; i < this.size; i++) {
      const entry = this.items[(this.start + i) % this.capacity];
      if (entry) out.push(entry);
    }
    return out;
  }
}

export class ConnectionLog {
  private readonly rings = new Map<string, Ring>();
  private readonly listeners = new Set<{ hostId: string | undefined; listener: ConnectionLogListener }>();
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(opts: ConnectionLogOptions = {}) {
    this.capacity = Math.max(1, Math.floor(opts.capacity ?? DEFAULT_CAPACITY));
    this.now = opts.now ?? Date.now;
  }

  write(hostId: string, level: ConnectionLogLevel, message: string): ConnectionLogEntry {
    const entry: ConnectionLogEntry = { time: this.now(), level, message };
    let ring = this.rings.get(hostId);
    if (!ring) {
      ring = new Ring(this.capacity);
      this.rings.set(hostId, ring);
    }
    ring.push(entry);
    for (const { hostId: wanted, listener } of [...this.listeners]) {
      if (wanted !== undefined && wanted !== hostId) continue;
      try {
        listener(hostId, entry);
      } catch {
        // A faulty subscriber must not break the connection that is logging.
      }
    }
    return entry;
  }

  /** A writer bound to one host (or to several, for a jump host shared by them). */
  writer(hostIds: string | readonly string[]): ConnectionLogWriter {
    const ids = typeof hostIds === 'string' ? [hostIds] : [...hostIds];
    return (level, message) => {
      for (const id of ids) this.write(id, level, message);
    };
  }

  /** Oldest first. */
  entries(hostId: string): ConnectionLogEntry[] {
    return this.rings.get(hostId)?.toArray() ?? [];
  }

  /** Live updates for one host, or for all hosts when hostId is omitted. Returns the unsubscribe function. */
  subscribe(listener: ConnectionLogListener, hostId?: string): () => void {
    const record = { hostId, listener };
    this.listeners.add(record);
    return () => {
      this.listeners.delete(record);
    };
  }

  clear(hostId: string): void {
    this.rings.delete(hostId);
  }
}
