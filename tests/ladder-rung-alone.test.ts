/**
 * A rung the ladder measured is the model its configuration writes alone (`qstudio quantize --config` with the saved
 * configuration, or the page's rebuild after its worker stopped), whatever rungs came before it and shared their
 * calibration: a SmoothQuant rung after the plain one calibrates its own smoothed model (the plain rung's ranges are
 * those of the unsmoothed activations), and a fine-tuning rung calibrates what the plain run calibrates. Run for real
 * in onnxruntime-node: a transformer block (SmoothQuant) and a convolution whose BatchNormalization preparation folds.
 */
import { describe, expect, it } from 'vitest';
import { encode, type ModelProto } from '../src/core/onnx/index.ts';
import { validateConfig, type QuantConfig } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { attentionBlockModel, convBatchNormModel } from '../src/core/quantize/testModels.ts';
import { quantizeWithRecovery } from '../src/core/recovery/quantizeWithRecovery.ts';
import { ladderMeasures, type RungDetail } from '../src/core/recovery/ladderMeasure.ts';
import type { Rung } from '../src/core/recovery/ladder.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { float32Tensor, nodeRuntime, type Feeds } from '../src/cli/runtime/ortNode.ts';
import { seededFloats } from './helpers/fixtures.ts';

/** Six samples [1, 6, 8] for attentionBlockModel. */
const blockFeeds = () =>
  Array.from({ length: 6 }, (_, k) => ({
    x: float32Tensor(
      seededFloats(48, 31 + k).map((v) => v * 3),
      [1, 6, 8],
    ),
  }));

const rung = (index: number, label: string): Rung => ({
  index,
  label,
  step: 'ours',
  recipe: { preset: 'A8W8', perChannel: false, cle: false, finetune: null, exclusions: false },
});

/** The bytes of each configuration measured in turn by one ladder, beside the bytes each writes alone. */
async function ladderAgainstAlone(model: ModelProto, feeds: readonly Feeds[], configs: readonly QuantConfig[]) {
  const calibrate = async (m: ModelProto, config: QuantConfig) => (await calibrateOnFeeds(m, feeds, { config })).ranges;
  const runtime = nodeRuntime(feeds);
  const measures = ladderMeasures({ model, calibrate, tuning: runtime, evaluation: runtime }, 'cosine');
  const inLadder: Uint8Array[] = [];
  for (const [k, config] of configs.entries()) {
    const m = await measures.measure(config, rung(k + 1, `rung ${k + 1}`));
    inLadder.push(encode((m.detail as RungDetail).quantized));
  }
  const alone: Uint8Array[] = [];
  for (const config of configs) {
    const r = await quantizeWithRecovery(model, config, { runtime, calibrate: (m) => calibrate(m, config) });
    alone.push(encode(r.model));
  }
  return { inLadder, alone };
}

describe('a rung the ladder measured is what its configuration writes alone', () => {
  it('a SmoothQuant rung after the plain one calibrates its smoothed model, not the plain rung’s', async () => {
    const feeds = blockFeeds();
    const base = getPreset('A8W8');
    const plain = validateConfig({ ...base, enableNpuTransformer: true });
    const smooth = validateConfig({ ...plain, includeSq: true });
    const { inLadder, alone } = await ladderAgainstAlone(attentionBlockModel(), feeds, [plain, smooth]);
    expect(inLadder[1]).not.toEqual(inLadder[0]);
    expect(inLadder).toEqual(alone);
  }, 120_000);

  it('a mixed-precision rung from a SmoothQuant start leaves that rung its own calibration, and is what its configuration writes alone', async () => {
    const feeds = blockFeeds();
    const smooth = validateConfig({ ...getPreset('A8W8'), enableNpuTransformer: true, includeSq: true });
    const calibrate = async (m: ModelProto, config: QuantConfig) =>
      (await calibrateOnFeeds(m, feeds, { config })).ranges;
    const runtime = nodeRuntime(feeds);
    const model = attentionBlockModel();
    const measures = ladderMeasures({ model, calibrate, tuning: runtime, evaluation: runtime }, 'cosine', {
      precisionBudget: { act16: 0.5, w16: 0.5, float: 0.25 },
    });
    const mixed = await measures.mixed!(
      smooth,
      { metric: 'cosine', value: 1 },
      { ...rung(1, 'mixed'), recipe: { ...rung(1, '').recipe, mixedPrecision: true } },
    );
    const after = await measures.measure(smooth, rung(2, 'smooth'));
    const alone = async (config: QuantConfig) =>
      encode((await quantizeWithRecovery(model, config, { runtime, calibrate: (m) => calibrate(m, config) })).model);
    expect(mixed.config!.includeSq).toBe(true);
    expect(encode((mixed.detail as RungDetail).quantized)).toEqual(await alone(mixed.config!));
    expect(encode((after.detail as RungDetail).quantized)).toEqual(await alone(smooth));
  }, 120_000);

  it('a fine-tuning rung after the plain one calibrates as its run alone does (Conv → BatchNormalization folded)', async () => {
    const feeds = Array.from({ length: 4 }, (_, k) => ({
      x: float32Tensor(
        seededFloats(3 * 8 * 8, 7 + k).map((v) => v * 2 - 0.5),
        [1, 3, 8, 8],
      ),
    }));
    const base = getPreset('A8W8');
    const plain = validateConfig(base);
    const tuned = validateConfig({
      ...base,
      includeFastFt: true,
      extraOptions: { ...base.extraOptions, FastFinetune: { NumIterations: 20 } },
    });
    const { inLadder, alone } = await ladderAgainstAlone(convBatchNormModel(), feeds, [plain, tuned]);
    expect(inLadder[1]).not.toEqual(inLadder[0]);
    expect(inLadder).toEqual(alone);
  }, 120_000);
});
