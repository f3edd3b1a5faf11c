// Run-to-run noise and warm-up of one simulated server, over the engine's busy (virtual) time, calibrated to published
// figures. Separate rng streams from the engine's per-step jitter, so a noise-free engine (no noise seed) keeps
// the calibrated numbers exactly.

import { makeRng } from './rng.mjs';

// Slow drift of all iteration times (clocks, thermals, host jitter): an Ornstein–Uhlenbeck process on log time.
// Stationary sd 0.5% with a correlation time of 40 busy seconds gives a ~0.3–0.6% CV of a 100-request run's means, between
// SGLang's floor (0.26–0.28%) and vLLM's non-acceptance figures (0.36–0.64% at c≥8):
// https://github.com/vllm-project/vllm/issues/53436
const DRIFT_SD = 0.005;
const DRIFT_TAU_S = 40;
// Speculative acceptance drifts run to run on vLLM (CV of decode throughput 9.85% c=1, 19.65% c=2, 7.5% c=4,
// <0.7% at c≥8), not on SGLang (its floor): https://github.com/vllm-project/vllm/issues/53436
const ACCEPT_SD = 0.16;
const ACCEPT_TAU_S = 30;
/** How much of the acceptance drift a decode batch of `seqs` sequences feels (fitted to the CVs above; wide
 * batches average it out). */
function acceptanceWeight(seqs) {
  if (seqs <= 1) return 1.1;
  if (seqs === 2) return 1.7;
  if (seqs === 3) return 1.1;
  if (seqs === 4) return 0.65;
  if (seqs < 8) return 0.02;
  return 0.005;
}
// Rare per-step stalls of a few tens of ms that hit the tail, not the mean: p99 TTFT is "especially sensitive to
// … a handful of tail requests", https://github.com/vllm-project/perf-eval/pull/59
const STALL_PER_STEP = 0.0008;
const STALL_MIN_S = 0.015;
const STALL_MAX_S = 0.045;
// A fresh server is slower for its first requests (cold vs warm: median TTFT +9.5%, p99 TTFT +9.8%, output
// throughput −0.5%): https://github.com/NVIDIA/TensorRT-LLM/pull/18432 — decays over about one run's requests.
// Only prefill steps: the slower prefills alone already cost a cold run ~1% of its throughput.
const WARM_PREFILL = 0.38;
const WARM_REQUESTS = 60;

export class ServerNoise {
  /** @param {string|number} seed the server's noise seed (box seed + launch counter); @param {string} engine */
  constructor(seed, engine) {
    this.engine = engine;
    this.drift = makeRng('noise-drift', seed);
    this.accept = makeRng('noise-accept', seed);
    this.stall = makeRng('noise-stall', seed);
    this.x = DRIFT_SD * this.drift.normal();
    this.a = ACCEPT_SD * this.accept.normal();
    this.lastStep = 0;
    this.prefills = 0;
    this.width = 1;
  }

  /** Moves the drift on by `dt` busy seconds (idle time is left out: the live server's idle gaps follow the wall
   * clock, and the same requests must give the same numbers). */
  advance(dt) {
    if (!(dt > 0)) return;
    const k = Math.exp(-dt / DRIFT_TAU_S);
    this.x = this.x * k + DRIFT_SD * Math.sqrt(1 - k * k) * this.drift.normal();
    const ka = Math.exp(-dt / ACCEPT_TAU_S);
    this.a = this.a * ka + ACCEPT_SD * Math.sqrt(1 - ka * ka) * this.accept.normal();
  }

  /** Iteration time `duration`, with drift, warm-up and the odd stall. */
  stepTime(duration, { prefillSeqs, decodeSeqs }) {
    this.advance(this.lastStep);
    const cold = Math.exp(-this.prefills / WARM_REQUESTS);
    let d = duration * Math.exp(this.x) * (prefillSeqs > 0 ? 1 + cold * WARM_PREFILL : 1);
    this.prefills += prefillSeqs;
    if (decodeSeqs > 0) this.width += (decodeSeqs - this.width) / 300;
    if (decodeSeqs + prefillSeqs > 0 && this.stall.next() < STALL_PER_STEP) d += STALL_MIN_S + (STALL_MAX_S - STALL_MIN_S) * this.stall.next();
    this.lastStep = d;
    return d;
  }

  /** Per-depth acceptance probability `q` under the current drift, for a decode batch of `seqs` sequences. */
  acceptance(q, seqs) {
    if (this.engine !== 'vllm') return q;
    // The load's width over the last few hundred steps, so the drained tail of a wide run keeps its weight.
    return Math.min(0.98, Math.max(0.02, q * Math.exp(this.a * acceptanceWeight(Math.round(Math.max(seqs, this.width))))));
  }
}
