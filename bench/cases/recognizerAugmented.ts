/**
 * The PP-OCRv4 recognizer at 8 bits with its 16 tuning lines enlarged by augmentation (issue 36 point 5, route (b)):
 * lines 00–15 and `copies` augmented copies of each (textLineAugment.ts: shift, crop or pad, contrast, brightness)
 * calibrate and fine-tune; lines 00–15 themselves are the held-in judge, 16–31 the held-out one ('all' and 'basic'),
 * by onnxruntime-node on the written bytes. Every tensor at 8 bits: A8W8 per channel with the attention rules (or
 * `preset=XINT8`), symmetric activations unless `sym=0`. Routes, one per argument: `plain:<method>` (calibration only),
 * `adaround:<iterations>` / `adaquant:<iterations>` (fast finetune on the same rows, every layer, MinMSE ranges unless
 * `method=`; with `calib=lines` the ranges come from lines 00–15 alone), `pos=<n>` sets PositionsPerSample for the routes after it.
 * Usage: recognizerAugmented.ts copies=<K> [sym=0] [preset=A8W8|XINT8] [method=MinMSE] [calib=lines] <route> [<route> …]   (JSON lines)
 */
import fs from 'node:fs';
import os from 'node:os';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod, type QuantConfig } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { FloatRowCache } from '../../src/core/recovery/floatRowCache.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { nodeDenseProduct } from '../../src/cli/runtime/denseProduct.ts';
import type { Ranges } from '../../src/core/quantize/plan.ts';
import { createTextJudges, RECOGNIZER_PATH, textLineFiles } from './recognizerSetup.ts';
import { augmentedTextLines } from './textLineAugment.ts';
import { caseOption } from './caseArguments.ts';

const args = process.argv.slice(2);
const copies = Number(caseOption('copies', args) ?? 0);
const symmetric = caseOption('sym', args) !== '0';
const presetName = caseOption('preset', args) ?? 'A8W8';
const method = (caseOption('method', args) ?? 'MinMSE') as CalibrationMethod;
// With `calib=lines`, ranges come from lines 00–15 alone and only fine-tuning sees the copies.
const calibrateOnLines = caseOption('calib', args) === 'lines';
const routes = args.filter((a) => !/^(copies|sym|preset|method|calib)=/.test(a));

const floatBytes = fs.readFileSync(RECOGNIZER_PATH);
const model = decode(floatBytes);
const { calibration, evaluation } = textLineFiles();
const tensors = augmentedTextLines(calibration, copies);
const { heldIn, heldOut } = await createTextJudges(floatBytes, { calibration, evaluation });
const preset = getPreset(presetName as Parameters<typeof getPreset>[0]);
const configFor = (m: CalibrationMethod): QuantConfig =>
  withOptions(preset, {
    perChannel: true,
    enableNpuTransformer: true,
    calibrationMethod: m,
    extraOptions: { ...preset.extraOptions, ActivationSymmetric: symmetric },
  });
const rangesBy = new Map<CalibrationMethod, Promise<Ranges>>();
const rangesFor = (m: CalibrationMethod) => {
  if (!rangesBy.has(m))
    rangesBy.set(
      m,
      calibrateOnTensors(model, calibrateOnLines ? tensors.slice(0, calibration.length) : tensors, {
        config: configFor(m),
      }).then((r) => r.ranges),
    );
  return rangesBy.get(m)!;
};
const runtime = nodeRuntime(tensors.map((x) => ({ x })));
const rows = new FloatRowCache(2 ** 30);
let positions = 128;

for (const route of routes) {
  if (route.startsWith('pos=')) {
    positions = Number(route.slice(4));
    continue;
  }
  const [kind, value] = route.split(':');
  const load = os.loadavg()[0];
  const t0 = performance.now(),
    c0 = process.cpuUsage();
  let bytes: Uint8Array;
  if (kind === 'plain') {
    const m = (value ?? method) as CalibrationMethod;
    bytes = encode(quantizeModel(model, await rangesFor(m), configFor(m)).model);
  } else if (kind === 'adaround' || kind === 'adaquant') {
    const config = withOptions(configFor(method), {
      includeFastFt: true,
      extraOptions: {
        ...configFor(method).extraOptions,
        FastFinetune: { OptimAlgorithm: kind, NumIterations: Number(value), PositionsPerSample: positions },
      },
    });
    const result = await quantizeWithRecovery(model, config, {
      calibrate: () => rangesFor(method),
      runtime,
      gramProduct: nodeGramProduct,
      denseProduct: nodeDenseProduct,
      floatRowCache: rows,
      sensitiveShare: 1,
      configName: route,
    });
    bytes = encode(result.model);
  } else throw new Error(`unknown route ${route}`);
  const c = process.cpuUsage(c0);
  const seconds = {
    wallS: +((performance.now() - t0) / 1000).toFixed(1),
    cpuS: +((c.user + c.system) / 1e6).toFixed(1),
  };
  console.log(
    JSON.stringify({
      route,
      preset: presetName,
      symmetric,
      method: kind === 'plain' ? (value ?? method) : method,
      rangesFrom: calibrateOnLines ? 'lines 00-15' : 'lines 00-15 and their copies',
      tuningTensors: tensors.length,
      copies,
      positions: kind === 'plain' ? undefined : positions,
      heldIn: await heldIn(bytes),
      heldOutAll: await heldOut.all(bytes),
      heldOutBasic: await heldOut.basic(bytes),
      ...seconds,
      loadAverage: +load.toFixed(1),
    }),
  );
}
