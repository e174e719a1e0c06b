/**
 * The PP-OCRv4 recognizer with each mixed-precision budget spent at the front of the network by hand, where the
 * calibration-line block maps (bench/NOTEBOOK.md, fidelity) put the loss: the first `float` quantized nodes stay float, the next
 * activation groups and weights (graph order, from `act-from` and `w-from`) go to 16 bits, as many as the default
 * budget allows; then optionally bias correction on the calibration lines (00–15). Judged on lines 00–15 and,
 * separately, on the held-out lines 16–31 by onnxruntime-node on the written file, which onnxruntime-web also runs.
 * A measurement of what a front-loaded choice reaches, not the product's search.
 * Usage: recognizerFront.ts <float nodes> <act-from> <w-from> [bc] [method=<m>] [recover=<steps>] [iterations=<n>]
 *   [sq=<alpha>] [reconstruction=local]   (A8W8 per-channel, attention rules; MinMSE ranges unless method= says;
 *   recover= a '+'-joined list of adaround, adaquant, bc; sq= SmoothQuant with that alpha before calibration)
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod, type QuantConfig } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { precisionUnits, withUnits } from '../../src/core/search/mixedPrecision.ts';
import { budgetCounts, DEFAULT_PRECISION_BUDGET } from '../../src/core/quantize/precisionBudget.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { createTextJudge, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { checkWrittenFile } from './writtenFile.ts';
import { caseOption } from './caseArguments.ts';

const [floatArgument, actFrom, weightFrom, ...rest] = process.argv.slice(2);
const steps = new Set([...(rest.includes('bc') ? ['bc'] : []), ...(caseOption('recover', rest)?.split('+') ?? [])]);
const finetune = steps.has('adaround') ? 'adaround' : steps.has('adaquant') ? 'adaquant' : undefined;
const alpha = caseOption('sq', rest);
const recovery = [...steps].join('+') + (alpha ? `${steps.size ? '+' : ''}sq ${alpha}` : '');
const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const config: QuantConfig = withOptions(getPreset('A8W8'), {
  perChannel: true,
  enableNpuTransformer: true,
  calibrationMethod: (caseOption('method', rest) ?? 'MinMSE') as CalibrationMethod,
});
const calibrationTensors = calibration.map(textLineTensor);
const t0 = performance.now();
const { ranges } = await calibrateOnTensors(model, calibrationTensors, { config });
const calibrationSeconds = (performance.now() - t0) / 1000;
const start = quantizeModel(model, ranges, config);
const units = precisionUnits(start, config);
const limits = budgetCounts(DEFAULT_PRECISION_BUDGET, start);
const floatCount = Math.min(Number(floatArgument), limits.float);
const set = [
  ...units.float.slice(0, floatCount),
  ...units.act16.slice(Number(actFrom), Number(actFrom) + limits.act16),
  ...units.w16.slice(Number(weightFrom), Number(weightFrom) + limits.w16),
];
const chosen = withUnits(config, set);
const recovered = withOptions(chosen, {
  includeBiasCorrection: steps.has('bc'),
  includeFastFt: finetune !== undefined,
  includeSq: alpha !== undefined,
  extraOptions: {
    ...(alpha ? { SmoothAlpha: Number(alpha) } : {}),
    ...(finetune
      ? {
          // The algorithm's own defaults (learning rate included), as the preset's for another algorithm.
          FastFinetune: {
            OptimAlgorithm: finetune,
            LearningRate: undefined,
            ...(caseOption('iterations', rest) ? { NumIterations: Number(caseOption('iterations', rest)) } : {}),
          },
        }
      : {}),
  },
});
const t1 = performance.now();
// SmoothQuant changes the model before calibration, so its ranges are measured again on the smoothed model.
const final =
  recovered.includeBiasCorrection || recovered.includeFastFt || recovered.includeSq
    ? (
        await quantizeWithRecovery(model, recovered, {
          calibrate: async (m) =>
            recovered.includeSq ? (await calibrateOnTensors(m, calibrationTensors, { config })).ranges : ranges,
          runtime: nodeRuntime(calibrationTensors.map((x) => ({ x }))),
          gramProduct: nodeGramProduct,
          reconstruction: caseOption('reconstruction', rest) === 'local' ? 'local' : 'asymmetric',
          onProgress: (p) => {
            if (p.phase === 'layer')
              process.stderr.write(
                `tuned ${p.id} (${p.done}/${p.total}) ${p.lossBefore?.toPrecision(3)} → ${p.lossAfter?.toPrecision(3)}\n`,
              );
          },
        })
      ).model
    : quantizeModel(model, ranges, chosen).model;
const recoverySeconds = (performance.now() - t1) / 1000;
const bytes = encode(final);
const floatBytes = encode(model);
const { kl: _a, ...onCalibration } = await (await createTextJudge(floatBytes, calibration))(bytes);
const { kl: _b, ...heldOut } = await (await createTextJudge(floatBytes, evaluation))(bytes);
const { webRuns, checker } = await checkWrittenFile(
  path.join(import.meta.dirname, '../tmp', 'recognizer-front.onnx'),
  final,
  bytes,
  { x: textLineTensor(evaluation[0]) },
);
const written = quantizeModel(model, ranges, chosen).report;
const names = (kind: string) => set.filter((u) => u.kind === kind).flatMap((u) => u.names);
console.log(
  JSON.stringify({
    model: 'ch_PP-OCRv4_rec_infer.onnx',
    variant: `front-loaded${recovery ? `+${recovery}` : ''}`,
    method: config.calibrationMethod,
    calibrationSeconds: +calibrationSeconds.toFixed(0),
    recoverySeconds: +recoverySeconds.toFixed(0),
    calibrationLines: onCalibration,
    ...heldOut,
    act16: `${written.precision.wideActivations.length}/${limits.act16} of ${start.plan.activations.size}`,
    w16: `${written.precision.wideWeights.length}/${limits.w16} of ${start.plan.weights.size}`,
    float: `${floatCount}/${limits.float} of ${start.report.quantized.length}`,
    chosen: JSON.stringify({ float: names('float'), act16: names('act16'), w16: names('w16') }),
    webRuns,
    checker,
  }),
);
