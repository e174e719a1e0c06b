/**
 * The optimizer tests' tuning options (core/recovery/tuning.ts TuneOptions): AdaRound's settings as the tests run them
 * (learning rate 0.1, rounding term 0.01, β from 20 to 2, a fifth of the iterations warm), no early stop, the bias
 * learned, at `iterations`; `more` overrides or adds (a product, updateBias: false, a plateau share).
 */
import type { TuneOptions } from '../../src/core/recovery/tuning.ts';

export function testTuneOptions(iterations: number, more: Partial<TuneOptions> = {}): TuneOptions {
  return {
    iterations,
    learningRate: 0.1,
    regParam: 0.01,
    betaRange: [20, 2],
    warmStart: 0.2,
    logPeriod: 10,
    earlyStop: false,
    updateBias: true,
    ...more,
  };
}
