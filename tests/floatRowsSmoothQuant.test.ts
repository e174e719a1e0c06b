/**
 * Float layer rows shared across the ladder's fine-tuning rungs (FloatRowCache) stay those of each rung's own float
 * model: SmoothQuant divides the smoothed layers' inputs by its factors, so a SmoothQuant rung after one without (or
 * the other way round) gathers its own rows and writes what it writes alone; nor does it take the other's tuned layers
(TunedLayerMemo: its float model computes their inputs otherwise). Run for real in onnxruntime-node on a
 * transformer block.
 */
import { describe, expect, it } from 'vitest';
import { encode } from '../src/core/onnx/index.ts';
import { validateConfig } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { quantizeWithRecovery } from '../src/core/recovery/quantizeWithRecovery.ts';
import { FloatRowCache } from '../src/core/recovery/floatRowCache.ts';
import { TunedLayerMemo } from '../src/core/recovery/tunedLayerMemo.ts';
import { attentionBlockModel } from '../src/core/quantize/testModels.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { float32Tensor, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { seededFloats } from './helpers/fixtures.ts';

describe('what fine-tuning rungs share stays their own float model', () => {
  const blockFeeds = Array.from({ length: 6 }, (_, k) => ({
    x: float32Tensor(
      seededFloats(48, 31 + k).map((v) => v * 3),
      [1, 6, 8],
    ),
  }));
  const blockRuntime = nodeRuntime(blockFeeds);
  const a8w8 = (sq: boolean) => {
    const base = getPreset('A8W8');
    return validateConfig({
      ...base,
      includeFastFt: true,
      includeSq: sq,
      extraOptions: { ...base.extraOptions, FastFinetune: { NumIterations: 30 } },
    });
  };
  const tuneBlock = (sq: boolean, floatRowCache: FloatRowCache, tunedLayerMemo?: TunedLayerMemo) =>
    quantizeWithRecovery(attentionBlockModel(), a8w8(sq), {
      runtime: blockRuntime,
      calibrate: async (m) => (await calibrateOnFeeds(m, blockFeeds, { config: a8w8(sq) })).ranges,
      floatRowCache,
      tunedLayerMemo,
    });

  it("a SmoothQuant rung after one without (and the other way round) does not take the other's float rows or layers", async () => {
    for (const first of [false, true]) {
      const shared = new FloatRowCache();
      const memo = new TunedLayerMemo();
      await tuneBlock(first, shared, memo);
      const after = await tuneBlock(!first, shared, memo);
      const alone = await tuneBlock(!first, new FloatRowCache());
      expect((after.recovery.smoothQuant?.tensors.length ?? 0) > 0).toBe(!first);
      expect(encode(after.model)).toEqual(encode(alone.model));
      expect(after.recovery.reused!.layers).toBe(0);
    }
  });
});
