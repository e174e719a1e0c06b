/**
 * Deterministic data for the calibration tests: a seeded generator (mulberry32), Gaussian and uniform
 * batches, and a seeded way to cut a batch list into groups. Tests only; nothing in production imports it.
 */

/** A seeded generator of uniform numbers in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n draws of N(mean, sd²), Box–Muller. */
export function gaussian(n: number, seed: number, mean = 0, sd = 1): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = mean + sd * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  return out;
}

/** n draws of U(lo, hi). */
export function uniform(n: number, seed: number, lo = 0, hi = 1): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * r();
  return out;
}

/** Batches whose ranges differ widely (scales from 0.01 to 100, shifted), so that merges must re-lay bins. */
export function unevenBatches(count: number, size: number, seed: number): Float32Array[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, k) => {
    const scale = Math.pow(10, -2 + 4 * r());
    const shift = (r() - 0.5) * scale * 2;
    const b = gaussian(size, seed * 1000 + k, shift, scale);
    if (k % 3 === 0) b[0] = -b[0] * 50; // an outlier now and then
    return b;
  });
}

/** Concatenation of batches. */
export function concat(batches: Float32Array[]): Float32Array {
  const out = new Float32Array(batches.reduce((n, b) => n + b.length, 0));
  let o = 0;
  for (const b of batches) {
    out.set(b, o);
    o += b.length;
  }
  return out;
}

/** A seeded shuffle of the batches, cut into `parts` non-empty groups. */
export function randomPartition<T>(items: T[], parts: number, seed: number): T[][] {
  const r = rng(seed);
  const shuffled = [...items];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const groups: T[][] = Array.from({ length: parts }, () => []);
  shuffled.forEach((item, i) => groups[i < parts ? i : Math.floor(r() * parts)].push(item));
  return groups;
}
