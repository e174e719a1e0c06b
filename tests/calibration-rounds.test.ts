/**
 * Sequential calibration split over shares of the samples (core SequentialRound), as the page's workers and
 * `qstudio calibrate --shard` run it: every share runs a round, the round's states are merged and the ranges
 * fixed, then the next round starts on every share with the same ranges. On a convolution chain built in code,
 * under onnxruntime-node: three shares give exactly the ranges of one run over all samples, which the former
 * way (each share its whole sequential calibration, then a merge) did not.
 */
import { describe, expect, it } from 'vitest';
import { ModelCalibrator, type SampleSource } from '../src/core/calibrate/run/runner.ts';
import { afterRound, mergeTensorStates, rangesOf, type TensorStates } from '../src/core/calibrate/run/statistics.ts';
import { computedTensors, depthGroups } from '../src/core/calibrate/run/sequential.ts';
import { presetWithMethod } from '../src/core/quantize/presets.ts';
import type { Feed } from '../src/core/runtime/session.ts';
import { ortNodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { convChainFeeds, convChainModel } from './helpers/recoverModels.ts';

const model = convChainModel();
const config = presetWithMethod('A8W8', 'Sequential');
const feeds = convChainFeeds(9).map((f) => ({ x: { type: 'float32', data: f.x.data, dims: f.x.dims } as Feed }));

function source(indices: readonly number[]): SampleSource {
  return {
    count: indices.length,
    name: (i) => `sample ${indices[i]}`,
    produce: async (i) => ({ feeds: feeds[indices[i]] }),
  };
}

const all = feeds.map((_, i) => i);
/** Interleaved shares, as the page splits samples over its workers. */
const shares = [0, 1, 2].map((s) => all.filter((i) => i % 3 === s));

const mergeAll = (parts: readonly TensorStates[]) =>
  parts.reduce((a, b) => mergeTensorStates(a, b), new Map() as TensorStates);

describe('sequential calibration in rounds over shares', () => {
  // A budget of one tensor's outputs (12×12×8 float32) chunks every depth group: each chunk is a round of its own.
  it.each([
    ['one pass a depth group', undefined],
    ['groups in chunks', 5000],
  ] as const)(
    '%s: three shares, synchronised per round, give exactly the ranges of one run over all samples; unsynchronised they did not',
    async (_label, budget) => {
      const calibrators = shares.map(() => new ModelCalibrator(model, ortNodeRuntime(1), budget));
      const whole = new ModelCalibrator(model, ortNodeRuntime(1), budget);
      try {
        const one = await whole.calibrate(
          source(all),
          config,
          () => false,
          () => undefined,
        );
        const rounds = whole.sequentialRounds();
        const produced = whole.observable.filter((t) => t !== 'x');
        const groups = depthGroups(model, computedTensors(model, produced));
        if (budget) expect(rounds).toBe(1 + groups.flat().length);
        else expect(rounds).toBe(1 + groups.length);
        expect(one.rounds).toBe(rounds);

        const first = await Promise.all(
          calibrators.map((c, s) =>
            c.calibrate(
              source(shares[s]),
              config,
              () => false,
              () => undefined,
              { index: 0, ranges: null },
            ),
          ),
        );
        let merged = mergeAll(first.map((o) => o.states));
        expect(first.map((o) => o.used)).toEqual([3, 3, 3]);
        for (let g = 1; g < rounds; g++) {
          const ranges = rangesOf(merged);
          const seen: { pass: number; passes: number }[] = [];
          const round = await Promise.all(
            calibrators.map((c, s) =>
              c.calibrate(
                source(shares[s]),
                config,
                () => false,
                (p) => seen.push(p),
                { index: g, ranges },
              ),
            ),
          );
          // Samples folded: each share's three, or none where the quantized model computes nothing of the group.
          expect(round.map((o) => o.used)).toEqual(round.map((o) => (o.states.size > 0 ? 3 : 0)));
          // A round's states are its pass's tensors only (of one depth group); its passes are numbered as in the whole run.
          for (const o of round)
            expect(groups.some((group) => [...o.states.keys()].every((t) => group.includes(t)))).toBe(true);
          for (const o of round) expect(o.states.size).toBeLessThanOrEqual(budget ? 1 : Infinity);
          // (the float pass is in chunks too under the small budget: passes before the sequential ones)
          expect(seen.at(-1)!.passes - seen.at(-1)!.pass).toBe(rounds - 1 - g);
          merged = afterRound(merged, mergeAll(round.map((o) => o.states)));
        }
        expect(Object.fromEntries(rangesOf(merged))).toEqual(Object.fromEntries(rangesOf(one.states)));

        // The former way: each share its whole sequential calibration, quantized upstream with its own ranges.
        const apart = await Promise.all(
          calibrators.map((c, s) =>
            c.calibrate(
              source(shares[s]),
              config,
              () => false,
              () => undefined,
            ),
          ),
        );
        const approximate = rangesOf(mergeAll(apart.map((o) => o.states)));
        const exact = rangesOf(one.states);
        const differ = [...exact].filter(
          ([t, r]) => approximate.get(t)!.min !== r.min || approximate.get(t)!.max !== r.max,
        );
        expect(differ.length).toBeGreaterThan(0);
      } finally {
        await Promise.all([whole, ...calibrators].map((c) => c.release()));
      }
    },
    60_000,
  );

  it('a round needs the ranges of the rounds before it, and exists only for Sequential', async () => {
    const calibrator = new ModelCalibrator(model, ortNodeRuntime(1));
    const rounds = calibrator.sequentialRounds();
    const run = (round: { index: number; ranges: null }, method: 'Sequential' | 'Entropy' = 'Sequential') =>
      calibrator.calibrate(
        source([0]),
        presetWithMethod('A8W8', method),
        () => false,
        () => undefined,
        round,
      );
    await expect(run({ index: 1, ranges: null })).rejects.toThrow(/without the ranges/);
    await expect(run({ index: rounds, ranges: null })).rejects.toThrow(RangeError);
    await expect(run({ index: 0, ranges: null }, 'Entropy')).rejects.toThrow(/no rounds/);
    await calibrator.release();
  });
});
