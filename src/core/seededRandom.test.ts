import { describe, expect, it } from 'vitest';
import { seededRandom } from './seededRandom.ts';

describe('seededRandom', () => {
  it('is mulberry32: seed 42 starts 0.6011037519201636, 0.44829055899754167, 0.8524657934904099', () => {
    const r = seededRandom(42);
    expect([r(), r(), r()]).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
  });

  it('repeats for the same seed and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    for (let i = 0; i < 1000; i++) {
      const x = a();
      expect(x).toBe(b());
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});
