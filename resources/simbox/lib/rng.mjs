// Deterministic pseudo-random numbers: every simulated figure derives from a seed, so runs repeat exactly.

/** A 32-bit hash of any strings/numbers (FNV-1a followed by a murmur finaliser). */
export function hash32(...parts) {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = String(part);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x7c; // separator so ("ab","c") differs from ("a","bc")
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: small, fast, good enough for workload sampling and noise. */
export function makeRng(...seedParts) {
  let a = hash32(...seedParts);
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let spareNormal = null;
  const rng = {
    next,
    /** Integer in [lo, hi] inclusive. */
    int(lo, hi) {
      return lo + Math.floor(next() * (hi - lo + 1));
    },
    normal() {
      if (spareNormal !== null) {
        const v = spareNormal;
        spareNormal = null;
        return v;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spareNormal = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
    exponential(mean) {
      let u = 0;
      while (u === 0) u = next();
      return -Math.log(u) * mean;
    },
    /** Gamma(shape, scale) by Marsaglia–Tsang; used for bursty arrivals like vLLM's gamma process. */
    gamma(shape, scale) {
      if (shape < 1) return rng.gamma(shape + 1, scale) * Math.pow(next() || 1e-12, 1 / shape);
      const d = shape - 1 / 3;
      const c = 1 / Math.sqrt(9 * d);
      for (;;) {
        let x;
        let v;
        do {
          x = rng.normal();
          v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        const u = next();
        if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
        if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
      }
    },
    shuffle(array) {
      for (let i = array.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [array[i], array[j]] = [array[j], array[i]];
      }
      return array;
    },
  };
  return rng;
}
