// Runs the engine scheduler against the wall clock: virtual (real-GPU) seconds advance timeScale times faster
// than wall seconds. Requests are stamped with virtual times; tokens are delivered when the wall clock reaches
// their iteration's end.
//
// At a high time scale a wall millisecond is a lot of virtual time, so a client's turnaround or the spread of
// requests "sent together" would distort what the engine sees. A client that knows it is talking to the
// simulated box can say so (see submit's hints); the engine then holds its clock (not the wall clock) until
// the announced requests are in, so the schedule is what a real GPU would have seen.

import { performance } from 'node:perf_hooks';
import { createEngine } from './engine-core.mjs';

/** Wall milliseconds the engine waits for an announced request before going on without it. */
const HOLD_GRACE_MS = 25;
/** Wall milliseconds an idle engine waits for unannounced requests arriving with the first one. */
const COALESCE_MS = 3;
/**
 * Wall milliseconds to wait for the next request of an announced wave (hundreds of connections open at once). Long
 * enough for a client slowed by a loaded machine (several simulated servers and their clients on a few cores): a wave
 * released early starts with part of its requests and stamps the rest later, which a real GPU never sees.
 */
const WAVE_GRACE_MS = 2000;

export class LiveEngine {
  constructor(profile, { timeScale, seed, noiseSeed, onStep } = {}) {
    this.core = createEngine(profile, { seed, noiseSeed });
    this.scale = timeScale;
    this.t0 = performance.now();
    this.vt = 0;
    this.handlers = new Map();
    this.timer = null;
    this.running = false;
    this.heldAt = null;
    this.expected = 0;
    this.onStep = onStep ?? (() => {});
    this.nextId = 1;
    this.stopped = false;
  }

  /** Virtual seconds now, as the wall clock says. */
  wallV() {
    return (performance.now() - this.t0) / 1000 / this.scale;
  }

  /**
   * Queues a request. handlers: {onTokens(n, vt, first), onDone(vt)}. Returns {id, arrival}.
   * Hints from a simulated client: `sentAt`, the virtual time it sent this request (the completion that freed
   * its slot); `followUp`, it will send another request when this one completes; `wave`, the number of
   * requests it sent at the same moment as this one.
   * Without hints a busy engine takes the request at its current iteration boundary and an idle engine first
   * catches up with the wall clock (real idle time).
   */
  submit({ promptTokens, maxTokens, sentAt = null, followUp = false, wave = 0 }, handlers) {
    if (this.stopped) throw new Error('engine stopped');
    const id = this.nextId++;
    const held = this.heldAt !== null;
    const idle = !this.core.busy && !this.running;
    if (idle) this.vt = sentAt !== null ? Math.max(this.vt, sentAt) : Math.max(this.vt, this.wallV());
    // A client's send time may be ahead of a busy engine's clock (the clock runs behind the wall when the machine is
    // loaded): the request then arrives at that time, not at the engine's current step.
    const arrival = sentAt !== null ? Math.max(sentAt, 0) : this.vt;
    this.core.add({ id, promptTokens, maxTokens, arrival });
    this.handlers.set(id, { ...handlers, followUp });
    if (held) {
      if (this.holdKind === 'wave' ? wave > 0 : sentAt !== null) this.expected--;
      if (this.expected <= 0) this.release();
      else this.hold(this.expected, this.holdKind, this.holdKind === 'wave' ? WAVE_GRACE_MS : HOLD_GRACE_MS);
    } else if (idle) {
      this.running = true;
      if (wave > 1) this.hold(wave - 1, 'wave', WAVE_GRACE_MS);
      else this.hold(0, 'coalesce', COALESCE_MS);
    } else this.kick();
    return { id, arrival };
  }

  abort(id) {
    this.core.abort(id);
    this.handlers.delete(id);
  }

  /** Freezes virtual time until `expected` announced requests arrive (or a grace period passes without one). */
  hold(expected, kind, graceMs = HOLD_GRACE_MS) {
    if (this.timer) clearTimeout(this.timer);
    if (this.heldAt === null) this.heldAt = performance.now();
    this.expected = expected;
    this.holdKind = kind;
    this.timer = setTimeout(() => this.release(), graceMs);
  }

  release() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.heldAt !== null) {
      // The hold did not happen in virtual time: shift the wall origin by its length.
      this.t0 += performance.now() - this.heldAt;
      this.heldAt = null;
    }
    this.expected = 0;
    setImmediate(() => this.loop());
  }

  kick() {
    if (this.running || this.stopped) return;
    this.running = true;
    setImmediate(() => this.loop());
  }

  loop() {
    this.timer = null;
    if (this.stopped || this.heldAt !== null) return;
    for (let guard = 0; guard < 10000; guard++) {
      const step = this.core.step(this.vt);
      if (!step) {
        const ready = this.core.nextReadyAt();
        if (ready !== null && ready > this.vt) {
          this.vt = ready;
          continue;
        }
        this.running = false;
        return;
      }
      const wait = this.t0 + step.end * this.scale * 1000 - performance.now();
      if (wait > 1) {
        this.timer = setTimeout(() => this.deliver(step), wait);
        return;
      }
      if (this.deliver(step, true)) return;
    }
    setImmediate(() => this.loop());
  }

  /** Emits a finished iteration; returns true when the loop should yield (hold or stop). */
  deliver(step, inline = false) {
    this.timer = null;
    this.vt = step.end;
    let followUps = 0;
    for (const e of step.emissions) {
      const h = this.handlers.get(e.id);
      if (!h) continue;
      h.onTokens(e.tokens, step.end, e.first);
      if (e.done) {
        if (h.followUp) followUps++;
        this.handlers.delete(e.id);
        h.onDone(step.end);
      }
    }
    this.onStep(step, this);
    if (this.stopped) return true;
    if (followUps > 0) {
      // Completions free slots a closed-loop client refills at once: wait (in wall time only) for its requests.
      this.hold(followUps, 'follow-up');
      return true;
    }
    if (!inline) this.loop();
    return false;
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
