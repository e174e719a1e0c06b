/**
 * One small seeded generator for everything that must draw the same "random" numbers on every run and in every
 * runtime (Node, workers, the browser): the positions bias correction and fine-tuning sample, the random
 * calibration data. Not for anything that needs statistical quality or secrecy.
 */

/** mulberry32 (Tommy Ettinger): uniform numbers in [0, 1), the same sequence for the same 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
