// The simulated engine's scheduler in virtual time: continuous batching with chunked prefill, a KV-cache budget,
// preemption (vLLM-style recompute) and speculative decoding. Pure and deterministic for a given seed: the live
// server paces it against the wall clock, the calibration simulator runs it as fast as it can.

import { ServerNoise } from './noise.mjs';
import { makeRng } from './rng.mjs';

export class EngineCore {
  /**
   * @param {ReturnType<import('./perf-model.mjs').buildProfile>} profile
   * @param {{seed?: string|number, noise?: number, noiseSeed?: string|number|null}} [opts] noise: relative std-dev of
   *   iteration times; noiseSeed: seeds the server's run-to-run drift and warm-up (lib/noise.mjs), none without it.
   */
  constructor(profile, opts = {}) {
    this.p = profile;
    this.rng = makeRng('engine', opts.seed ?? 0, profile.engine, profile.model.id);
    this.noise = opts.noise ?? 0.012;
    this.serverNoise = opts.noiseSeed === undefined || opts.noiseSeed === null ? null : new ServerNoise(opts.noiseSeed, profile.engine);
    this.waiting = [];
    this.running = [];
    this.kvUsed = 0;
    this.stallPending = profile.firstPrefillStallS > 0;
    this.steps = 0;
  }

  /** Queues a request. `arrival`: virtual seconds; it becomes schedulable after the engine's request overhead. */
  add(req) {
    const r = {
      id: req.id,
      prompt: Math.max(1, req.promptTokens),
      maxTokens: Math.max(1, req.maxTokens),
      arrival: req.arrival,
      readyAt: req.arrival + this.p.ttftOverheadS,
      prefilled: 0,
      toPrefill: Math.max(1, req.promptTokens),
      generated: 0,
      held: 0,
      admitted: false,
    };
    this.waiting.push(r);
    return r;
  }

  /** Drops a request (client went away); frees its KV cache. */
  abort(id) {
    const w = this.waiting.findIndex((r) => r.id === id);
    if (w >= 0) this.waiting.splice(w, 1);
    const i = this.running.findIndex((r) => r.id === id);
    if (i >= 0) {
      this.kvUsed -= this.running[i].held;
      this.running.splice(i, 1);
    }
  }

  get busy() {
    return this.running.length > 0 || this.waiting.length > 0;
  }

  /** The earliest virtual time at which something can be scheduled, or null when there is nothing to do. */
  nextReadyAt() {
    if (this.running.length > 0) return -Infinity;
    let t = null;
    for (const r of this.waiting) if (t === null || r.readyAt < t) t = r.readyAt;
    return t;
  }

  reserveFor(r) {
    const need = r.prompt + r.generated + (this.p.kvPerSeqTokens ?? 0);
    if (this.p.admissionReserveRatio > 0) return need + Math.ceil((r.maxTokens - r.generated) * this.p.admissionReserveRatio);
    return need;
  }

  /**
   * Plans and "runs" one iteration starting at virtual time `now`. Returns null when nothing is schedulable at
   * `now` (see nextReadyAt). Otherwise { start, end, emissions: [{id, tokens, first, done}], decodeSeqs, prefillSeqs }.
   */
  step(now) {
    const plan = this.plan(now);
    if (!plan) return null;
    return this.finish(plan, this.planDuration(plan));
  }

  /** Tokens a planned iteration sends through the model (what the experts of coupled ranks see together). */
  static planTokens(plan) {
    return plan.batch.decodeTokens + plan.prefillTokens;
  }

  /**
   * Chooses the next iteration's batch at `now` and admits its new requests (preempting first where vLLM would);
   * null when there is nothing to run. The batch runs when `finish` is called with its duration.
   */
  plan(now) {
    const p = this.p;
    const spec = p.spec;
    const ready = this.waiting.filter((r) => r.readyAt <= now);
    const decoding = this.running.filter((r) => r.prefilled >= r.toPrefill);
    const partial = this.running.filter((r) => r.prefilled < r.toPrefill);

    // vLLM-style: decodes need one KV slot each; when full, the newest request is preempted and recomputed later.
    if (p.admissionReserveRatio === 0) {
      const growth = decoding.length * (spec ? spec.draftTokens : 1);
      while (decoding.length > 1 && this.kvUsed + growth > p.kvTokens) {
        const victim = this.running[this.running.length - 1];
        this.preempt(victim);
        const di = decoding.indexOf(victim);
        if (di >= 0) decoding.splice(di, 1);
        const pi = partial.indexOf(victim);
        if (pi >= 0) partial.splice(pi, 1);
      }
    }

    let budget = p.maxBatchedTokens;
    const prefill = [];
    const admitted = [];
    const prefillFirst = !p.mixedBatches && (partial.length > 0 || (ready.length > 0 && this.canAdmit(ready[0])));
    const doDecode = p.mixedBatches ? decoding.length > 0 : !prefillFirst && decoding.length > 0;
    const perSeqQuery = spec ? spec.draftTokens : 1;
    if (doDecode) budget -= decoding.length * perSeqQuery;

    if (p.mixedBatches || prefillFirst) {
      for (const r of partial) {
        if (budget <= 0) break;
        const chunk = Math.min(r.toPrefill - r.prefilled, p.chunkedPrefill ? budget : Infinity);
        prefill.push({ r, tokens: chunk, start: r.prefilled });
        budget -= chunk;
      }
      for (const r of ready) {
        if (budget <= 0) break;
        if (this.running.length + admitted.length >= p.maxRunning) break;
        if (!this.canAdmit(r, admitted)) break;
        if (!p.chunkedPrefill && r.toPrefill > budget) break;
        const chunk = Math.min(r.toPrefill, budget);
        admitted.push(r);
        prefill.push({ r, tokens: chunk, start: 0 });
        budget -= chunk;
      }
    }

    if (!doDecode && prefill.length === 0) return null;

    for (const r of admitted) {
      this.waiting.splice(this.waiting.indexOf(r), 1);
      r.admitted = true;
      r.held = this.reserveFor(r);
      this.kvUsed += r.held;
      this.running.push(r);
    }

    const decodeSeqs = doDecode ? decoding.length : 0;
    let decodeCtx = 0;
    if (doDecode) for (const r of decoding) decodeCtx += r.prompt + r.generated;
    const batch = { decodeSeqs, decodeTokens: decodeSeqs * perSeqQuery, decodeCtx, prefill: prefill.map((x) => ({ tokens: x.tokens, start: x.start })) };
    const prefillTokens = prefill.reduce((s, x) => s + x.tokens, 0);
    return { now, batch, prefill, decoding: doDecode ? decoding : [], decodeSeqs, prefillTokens };
  }

  /** Seconds a planned iteration takes on its own (`moeTokens`: the experts' tokens of all coupled ranks), noise aside. */
  planDuration(plan, moeTokens) {
    const p = this.p;
    const spec = p.spec;
    let duration = p.stepTime(plan.batch, moeTokens);
    if (spec && plan.decodeSeqs > 0) duration += p.draftTime(plan.decodeSeqs);
    if (spec && plan.prefill.length > 0) duration += 0.0008 * spec.steps;
    if (this.stallPending && plan.prefillTokens > 64) {
      duration += p.firstPrefillStallS;
      this.stallPending = false;
    }
    return duration;
  }

  /** The iteration's duration after this engine's noise. */
  noisy(duration, plan) {
    let d = duration * Math.max(0.85, 1 + this.noise * this.rng.normal());
    if (this.serverNoise) d = this.serverNoise.stepTime(d, { prefillSeqs: plan.prefill.length, decodeSeqs: plan.decodeSeqs });
    return d;
  }

  /** Runs a planned iteration for `duration` seconds (noise applied unless `exact`): emits its tokens, frees the done. */
  finish(plan, duration, { exact = false } = {}) {
    const spec = this.p.spec;
    if (!exact) duration = this.noisy(duration, plan);
    this.steps++;
    const emissions = [];
    for (const x of plan.prefill) {
      x.r.prefilled += x.tokens;
      if (x.r.prefilled >= x.r.toPrefill) {
        // The last prefill chunk also samples the request's next token.
        const first = x.r.generated === 0;
        x.r.generated += 1;
        this.grow(x.r, 1);
        emissions.push({ id: x.r.id, tokens: 1, first, done: x.r.generated >= x.r.maxTokens });
      }
    }
    for (const r of plan.decoding) {
      let n = 1;
      if (spec) n = this.sampleAccepted(spec, plan.decodeSeqs);
      n = Math.min(n, r.maxTokens - r.generated);
      r.generated += n;
      this.grow(r, n);
      emissions.push({ id: r.id, tokens: n, first: false, done: r.generated >= r.maxTokens });
    }
    for (const e of emissions) {
      if (!e.done) continue;
      const i = this.running.findIndex((r) => r.id === e.id);
      if (i >= 0) {
        this.kvUsed -= this.running[i].held;
        this.running.splice(i, 1);
      }
    }
    return { start: plan.now, end: plan.now + duration, emissions, decodeSeqs: plan.decodeSeqs, prefillSeqs: plan.prefill.length, prefillTokens: plan.prefillTokens };
  }

  canAdmit(r, alsoAdmitted = []) {
    const pending = alsoAdmitted.reduce((s, x) => s + this.reserveFor(x), 0);
    // Without reservation, keep a watermark plus one block per running sequence free for their next tokens,
    // as vLLM's block manager does, so admissions do not immediately force preemptions.
    const headroom = this.p.admissionReserveRatio > 0 ? 0 : Math.ceil(this.p.kvTokens * 0.01) + 16 * (this.running.length + alsoAdmitted.length);
    return this.kvUsed + pending + this.reserveFor(r) + headroom <= this.p.kvTokens;
  }

  grow(r, n) {
    if (this.p.admissionReserveRatio > 0) return; // already reserved
    r.held += n;
    this.kvUsed += n;
  }

  preempt(r) {
    const i = this.running.indexOf(r);
    if (i < 0) return;
    this.running.splice(i, 1);
    this.kvUsed -= r.held;
    r.held = 0;
    r.prefilled = 0;
    r.toPrefill = r.prompt + r.generated; // recompute the prompt and what was generated so far
    r.admitted = false;
    this.waiting.unshift(r);
  }

  sampleAccepted(spec, seqs) {
    let n = 1;
    for (const q of spec.depthAcceptance) {
      if (this.rng.next() < (this.serverNoise ? this.serverNoise.acceptance(q, seqs) : q)) n++;
      else break;
    }
    return n;
  }
}

/**
 * Data-parallel ranks behind one endpoint: one scheduler (EngineCore) per rank, each with its own batch and KV cache,
 * stepping together. Ranks whose expert layers are shared (layout.coupled: DP attention, vLLM's DP of a MoE model)
 * must: each step routes every rank's tokens through the experts at once, an idle rank runs a dummy batch, and the
 * step lasts as long as the slowest rank's part. Independent replicas (a dense model's DP) are stepped the same way,
 * which costs them the spread between their step times (a few percent at balanced load).
 *
 * Requests go to a rank as the engines dispatch: vLLM to the lowest `waiting x 4 + running`
 * (DPLBAsyncMPClient.get_core_engine_for_request, vllm/v1/engine/core_client.py@v0.11.0:1133-1153), SGLang and
 * TensorRT-LLM round robin (load_balance_method "round_robin", python/sglang/srt/server_args.py@v0.5.5:333).
 */
export class DpEngine {
  constructor(profile, opts = {}) {
    this.p = profile;
    const seed = opts.seed ?? 0;
    this.ranks = Array.from({ length: profile.ranks }, (_, i) =>
      new EngineCore(profile, { ...opts, seed: i === 0 ? seed : `${seed}:dp${i}`, noiseSeed: i === 0 ? opts.noiseSeed : null }),
    );
    this.next = 0;
    this.rankOf = new Map();
  }

  get steps() {
    return this.ranks[0].steps;
  }

  get waiting() {
    return this.ranks.flatMap((r) => r.waiting);
  }

  get running() {
    return this.ranks.flatMap((r) => r.running);
  }

  get kvUsed() {
    return this.ranks.reduce((s, r) => s + r.kvUsed, 0);
  }

  get busy() {
    return this.ranks.some((r) => r.busy);
  }

  add(req) {
    let i;
    if (this.p.engine === 'vllm') {
      let best = Infinity;
      for (const [k, r] of this.ranks.entries()) {
        const score = r.waiting.length * 4 + r.running.length;
        if (score < best) {
          best = score;
          i = k;
        }
      }
    } else {
      i = this.next;
      this.next = (this.next + 1) % this.ranks.length;
    }
    this.rankOf.set(req.id, i);
    return this.ranks[i].add(req);
  }

  abort(id) {
    const i = this.rankOf.get(id);
    if (i !== undefined) this.ranks[i].abort(id);
    this.rankOf.delete(id);
  }

  nextReadyAt() {
    let t = null;
    for (const r of this.ranks) {
      const x = r.nextReadyAt();
      if (x !== null && (t === null || x < t)) t = x;
    }
    return t;
  }

  step(now) {
    const plans = this.ranks.map((r) => r.plan(now));
    if (plans.every((x) => x === null)) return null;
    const moeTokens = this.p.layout.coupled ? plans.reduce((s, x) => s + (x ? EngineCore.planTokens(x) : 0), 0) : undefined;
    let duration = 0;
    for (const [i, plan] of plans.entries()) {
      // An idle coupled rank still runs the expert layers with the others (a dummy batch of its own).
      const own = plan ? this.ranks[i].planDuration(plan, moeTokens) : moeTokens ? this.p.stepTime({ decodeSeqs: 0, decodeTokens: 0, decodeCtx: 0, prefill: [] }, moeTokens) : 0;
      duration = Math.max(duration, own);
    }
    const lead = plans.find((x) => x !== null);
    duration = this.ranks[plans.indexOf(lead)].noisy(duration, lead);
    const out = { start: now, end: now + duration, emissions: [], decodeSeqs: 0, prefillSeqs: 0, prefillTokens: 0 };
    for (const [i, plan] of plans.entries()) {
      if (!plan) continue;
      const r = this.ranks[i].finish(plan, duration, { exact: true });
      out.emissions.push(...r.emissions);
      out.decodeSeqs += r.decodeSeqs;
      out.prefillSeqs += r.prefillSeqs;
      out.prefillTokens += r.prefillTokens;
    }
    for (const e of out.emissions) if (e.done) this.rankOf.delete(e.id);
    return out;
  }
}

/** The scheduler of one server: a single EngineCore, or one per data-parallel rank. */
export function createEngine(profile, opts = {}) {
  return (profile.ranks ?? 1) > 1 ? new DpEngine(profile, opts) : new EngineCore(profile, opts);
}
