/**
 * Mixed precision on the PP-OCRv4 recognizer by backward elimination, the way bench/NOTEBOOK.md (fidelity) located its loss:
 * the first `acts` activation groups and the first `weights` weights in graph order (the stem, where the
 * calibration-line block maps put the loss) start at 16 bits; then, one unit at a time, the one whose return to 8
 * bits raises the mean per-step KL divergence on the calibration lines (00–15) least goes back, until the set fits
 * the default budget. Optionally bias correction on the calibration lines. Judged on lines 16–31 only (never used
 * for a choice) by onnxruntime-node on the written file, which onnxruntime-web also loads and runs. A measurement
 * of what a joint, measured-together choice within the budget reaches, not the product's search
 * (core/search/mixedPrecision.ts, which measures from the 8-bit model and so misses weights whose gain shows
 * only once their input is wide). Usage: recognizerElimination.ts <preset> <method> <acts> <weights> [bc]
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod, type QuantConfig } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { precisionUnits, withUnits, type PrecisionUnit } from '../../src/core/search/mixedPrecision.ts';
import { budgetCounts, DEFAULT_PRECISION_BUDGET } from '../../src/core/quantize/precisionBudget.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { createTextJudge, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { checkWrittenFile } from './writtenFile.ts';

const [preset, method, actsArgument, weightsArgument, recovery] = process.argv.slice(2);
const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const config: QuantConfig = withOptions(getPreset(preset), {
  perChannel: true,
  enableNpuTransformer: true,
  calibrationMethod: method as CalibrationMethod,
});
const t0 = performance.now();
const calibrationTensors = calibration.map(textLineTensor);
const { ranges } = await calibrateOnTensors(model, calibrationTensors, { config });
const calibrationSeconds = (performance.now() - t0) / 1000;
const floatBytes = encode(model);
const onCalibration = await createTextJudge(floatBytes, calibration);
const heldOut = await createTextJudge(floatBytes, evaluation);

const start = quantizeModel(model, ranges, config);
const units = precisionUnits(start, config);
const limits = budgetCounts(DEFAULT_PRECISION_BUDGET, start);
let set: PrecisionUnit[] = [
  ...units.act16.slice(0, Number(actsArgument)),
  ...units.w16.slice(0, Number(weightsArgument)),
];
const used = (kind: 'act16' | 'w16') => set.filter((u) => u.kind === kind).reduce((a, u) => a + u.cost, 0);
const t1 = performance.now();
let measurements = 0;
while (used('act16') > limits.act16 || used('w16') > limits.w16) {
  let best: { unit: PrecisionUnit; kl: number } | undefined;
  for (const unit of set) {
    if (used(unit.kind as 'act16' | 'w16') <= limits[unit.kind]) continue;
    const { kl } = await onCalibration(
      encode(
        quantizeModel(
          model,
          ranges,
          withUnits(
            config,
            set.filter((u) => u !== unit),
          ),
        ).model,
      ),
    );
    measurements++;
    if (!best || kl < best.kl) best = { unit, kl };
  }
  set = set.filter((u) => u !== best!.unit);
  process.stderr.write(`back to 8 bits: ${best!.unit.names.join('+')} (calibration KL ${best!.kl})\n`);
}
const searchSeconds = (performance.now() - t1) / 1000;
const chosen = withUnits(config, set);
const plain = quantizeModel(model, ranges, chosen).model;
const final =
  recovery === 'bc'
    ? (
        await quantizeWithRecovery(
          model,
          { ...chosen, includeBiasCorrection: true },
          { calibrate: async () => ranges, runtime: nodeRuntime(calibrationTensors.map((x) => ({ x }))) },
        )
      ).model
    : plain;
const bytes = encode(final);
const untuned = recovery === 'bc' ? await heldOut(encode(plain)) : undefined;
const { kl: _kl, ...judged } = await heldOut(bytes);
const { webRuns, checker } = await checkWrittenFile(
  path.join(import.meta.dirname, '../tmp', `recognizer-elimination-${preset}-${method}.onnx`),
  final,
  bytes,
  { x: textLineTensor(evaluation[0]) },
);
const names = (kind: string) => set.filter((u) => u.kind === kind).flatMap((u) => u.names);
console.log(
  JSON.stringify({
    model: 'ch_PP-OCRv4_rec_infer.onnx',
    preset: `${preset} ${method}`,
    variant: `attention+perChannel+stem elimination${recovery === 'bc' ? '+bc' : ''}`,
    ...judged,
    ...(untuned
      ? { untunedLinesMatching: untuned.linesMatching, untunedCer: untuned.cer, untunedStepTop1: untuned.stepTop1 }
      : {}),
    act16: `${used('act16')}/${limits.act16} of ${start.plan.activations.size}`,
    w16: `${used('w16')}/${limits.w16} of ${start.plan.weights.size}`,
    float: `0/${limits.float} of ${start.report.quantized.length}`,
    searchCosine: `elimination from the first ${actsArgument} activation groups and ${weightsArgument} weights by calibration KL`,
    measurements,
    searchSeconds: +searchSeconds.toFixed(0),
    calibrationSeconds: +calibrationSeconds.toFixed(1),
    opset: `${model.opset_import.find((o) => !o.domain)?.version}→${final.opset_import.find((o) => !o.domain)?.version}`,
    chosen: JSON.stringify({ act16: names('act16'), w16: names('w16') }),
    webRuns,
    checker,
  }),
);
