/**
 * Quantized models for tests that read QDQ files: a fixture quantized by the studio's own writer on stand-in
 * ranges (every tensor -2…6, inputs 0…1). Structure and Q/DQ values are real; accuracy is not the point.
 */
import { decode, type ModelProto } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { validateConfig, configToJSON } from '../../src/core/quantize/config.ts';
import type { TensorRange } from '../../src/core/quantize/plan.ts';
import { readModel } from './fixtures.ts';

export function quantizedFixture(name: string, options: { perChannel?: boolean; preset?: string } = {}): ModelProto {
  const model = decode(readModel(name));
  const ranges = new Map<string, TensorRange>();
  for (const n of model.graph!.node) for (const t of [...n.input, ...n.output]) ranges.set(t, { min: -2, max: 6 });
  for (const i of model.graph!.input) ranges.set(i.name!, { min: 0, max: 1 });
  const preset = options.preset ?? 'U8S8';
  const config = validateConfig({
    ...JSON.parse(configToJSON(getPreset(preset))),
    perChannel: options.perChannel ?? false,
  });
  return quantizeModel(model, ranges, config, preset).model;
}
