/**
 * The fine-tuning plateau stop (TuneOptions.plateau, core/recovery/tuning.ts): off (0) it changes nothing; on, AdaRound
 * and AdaQuant stop a layer once its loss improved by less than the share over a window, run fewer iterations than
 * asked, and still return codes no worse than nearest rounding.
 */
import { describe, expect, it } from 'vitest';
import { buildLayerProblem } from '../src/core/recovery/layerProblem.ts';
import { adaround } from '../src/core/recovery/adaround.ts';
import { adaquant } from '../src/core/recovery/adaquant.ts';
import { flattened, plateauWindow } from '../src/core/recovery/tuning.ts';
import { smallLayerRows } from './helpers/layerRows.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

const options = testTuneOptions(400);

describe('the plateau stop', () => {
  it('reads a flat window as a gain below the share of the loss before, a rise as flat, the first window never', () => {
    expect(flattened(100, 99.95, 1e-3)).toBe(true);
    expect(flattened(100, 99.8, 1e-3)).toBe(false);
    expect(flattened(100, 101, 1e-3)).toBe(true);
    expect(flattened(Infinity, 5, 1e-3)).toBe(false);
    expect(plateauWindow(450)).toBe(22);
    expect(plateauWindow(100)).toBe(10);
  });

  for (const [name, tune] of [
    ['AdaRound', adaround],
    ['AdaQuant', adaquant],
  ] as const) {
    it(`${name}: a share of 0 gives the very codes of no plateau stop`, async () => {
      const p = buildLayerProblem(smallLayerRows(12, 40, 1, 300, 11));
      const without = await tune(p, options);
      const off = await tune(p, { ...options, plateau: 0 });
      expect(off.iterations).toBe(without.iterations);
      expect(off.codes).toEqual(without.codes);
      expect(off.lossAfter).toBe(without.lossAfter);
    });

    it(`${name}: a coarse share stops the layer early, and the result is no worse than nearest rounding`, async () => {
      const p = buildLayerProblem(smallLayerRows(12, 40, 1, 300, 11));
      const without = await tune(p, options);
      const stopped = await tune(p, { ...options, plateau: 0.05 });
      expect(stopped.iterations).toBeLessThan(without.iterations);
      expect(stopped.lossAfter).toBeLessThanOrEqual(stopped.lossBefore);
    });
  }
});
