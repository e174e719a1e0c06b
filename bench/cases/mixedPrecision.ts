/**
 * Automatic mixed precision judged as issue 15 asks: the model stays 8-bit (the preset's types), the search
 * (core/search/mixedPrecision.ts) chooses what leaves 8 bits within the default budget from measurements on a
 * few calibration samples, optionally AdaRound then learns the rounding of the result, and onnxruntime-node runs
 * the written file on held-out data (never the calibration data). Every written model is also loaded in
 * onnxruntime-web and, where its opset is at most 17, checked by onnx.checker.
 *
 * Usage: mixedPrecision.ts <yolox-nano|ppocr-det> <preset> [perChannel] [adaround] [bc] [max=<measurements>] [method=<calibration method>]
 *   [fused] [samples=<n>] [tune=<n>] [iterations=<n>] [earlyStop] [safe]
 *   fused: enableNpuTransformer (written-out functions such as HardSwish and SiLU quantized as one op).
 *   bc: bias correction after the search (with AdaRound: after it, as Quark orders them).
 *   samples: calibration samples the search measures sensitivity on (default 4 for YOLOX, 3 for the detector).
 *   tune: calibration samples AdaRound and bias correction gather layer data from (default all); iterations: AdaRound's
 *   steps per layer (default Quark's 1000); earlyStop: AdaRound's early stop.
 *   yolox-nano: COCO 1–16 calibrate, 17–24 judge (docs/NOTES.md's held-out split). ppocr-det: textScenes' calibration scenes
 *   (lines 00–15 on COCO 1–16) calibrate, its held-out scenes (lines 16–31 on COCO 17–24 and the photos) judge.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode, opsetOf, type ModelProto } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod, type QuantConfig } from '../../src/core/quantize/config.ts';
import { DEFAULT_PRECISION_BUDGET } from '../../src/core/quantize/precisionBudget.ts';
import { chooseMixedPrecision } from '../../src/core/search/mixedPrecision.ts';
import { createOutputJudge } from '../../src/core/evaluate/outputJudge.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { heldOutFiles } from './heldOut.ts';
import { float32Tensor, nodeRuntime, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { DETECTORS } from './detectors.ts';
import { TEXT_DETECTOR, textSceneFeeds } from './textScenes.ts';
import { checkWrittenFile } from './writtenFile.ts';
import { caseNumber, caseOption } from './caseArguments.ts';

const [which, preset, ...flags] = process.argv.slice(2);
const perChannel = flags.includes('perChannel');
const adaround = flags.includes('adaround');
const maxMeasurements = caseNumber('max', flags) ?? 100;
/** The 8-bit tensors' calibration method, when not the preset's (16-bit tensors take the extremes seen, whatever it is). */
const method = caseOption('method', flags);
const fused = flags.includes('fused');
const biasCorrection = flags.includes('bc');
const searchSamples = caseNumber('samples', flags);
const tuneSamples = caseNumber('tune', flags);
const iterations = caseNumber('iterations', flags);
const earlyStop = flags.includes('earlyStop');
const saturationSafe = flags.includes('safe');
const root = path.resolve(import.meta.dirname, '../..');
const tmp = path.join(root, 'bench/tmp');
fs.mkdirSync(tmp, { recursive: true });

function load(): { model: ModelProto; calib: Feeds[]; judge: Feeds[]; samples: number } {
  if (which === 'yolox-nano') {
    const model = decode(fs.readFileSync(path.join(root, '../shared/fixtures/models/yolox-nano.onnx')));
    const { calibration, evaluation } = heldOutFiles();
    const spec = DETECTORS['yolox-nano.onnx'].preprocess;
    return {
      model,
      calib: imageFeeds(model, { files: calibration }, spec).feeds,
      judge: imageFeeds(model, { files: evaluation }, spec).feeds,
      samples: 4,
    };
  }
  if (which === 'ppocr-det') {
    const model = decode(fs.readFileSync(TEXT_DETECTOR.model));
    const input = model.graph!.input[0].name!;
    const feeds = (set: 'calib' | 'judge') =>
      textSceneFeeds(set).map((s) => ({ [input]: float32Tensor(s.data, s.dims) }));
    return { model, calib: feeds('calib'), judge: feeds('judge'), samples: 3 };
  }
  throw new Error(`unknown model ${which}: yolox-nano or ppocr-det`);
}

const { model, calib, judge, samples } = load();
const base: QuantConfig = withOptions(getPreset(preset as never), {
  perChannel,
  enableNpuTransformer: fused,
  saturationSafeWeights: saturationSafe,
  ...(method ? { calibrationMethod: method as CalibrationMethod } : {}),
});
const t0 = performance.now();
const { ranges } = await calibrateOnTensors(
  model,
  calib.map((f) => Object.values(f)[0]),
  { config: base },
);
const held = await createOutputJudge(model, nodeRuntime(judge));
const start = await held.score(quantizeModel(model, ranges, base).model);

const t1 = performance.now();
const mixed = await chooseMixedPrecision(model, ranges, base, nodeRuntime(calib), {
  budget: DEFAULT_PRECISION_BUDGET,
  target: 0.99,
  samples: searchSamples ?? samples,
  maxMeasurements,
  onStep: (s) =>
    process.stderr.write(
      `step ${s.index} ${s.phase} units ${s.units} cosine ${s.cosine.toFixed(4)} gain ${s.gain.toFixed(4)} ${s.seconds.toFixed(1)} s\n`,
    ),
});
const searchSeconds = (performance.now() - t1) / 1000;
const plain = quantizeModel(model, ranges, mixed.config);
const plainScore = await held.score(plain.model);

/**
 * The written file (onnxruntime-web loads and runs it, onnx.checker checks it where its opset allows) and the
 * result line. Printed once after mixed precision and again after AdaRound, so a run cut short keeps the first.
 */
async function finish(final: ModelProto, tunedScore: number | null, tuneSeconds: number | null): Promise<void> {
  const file = path.join(
    tmp,
    `mixed-${which}-${preset}${perChannel ? '-pc' : ''}${method ? `-${method}` : ''}${fused ? '-fused' : ''}${saturationSafe ? '-safe' : ''}${tunedScore !== null ? `-${recoverySteps.replace(/\W+/g, '-')}` : ''}.onnx`,
  );
  const { webRuns, checker } = await checkWrittenFile(file, final, encode(final), judge[0]);
  const opset = opsetOf(final) ?? 0;
  const top = mixed.sensitivities.slice(0, 5).map(
    (s) =>
      `${s.kind}:${s.units
        .flatMap((u) => u.names)
        .slice(0, 3)
        .join('+')}${s.units.length > 1 ? `(${s.units.length} units)` : ''}=${s.gain.toFixed(4)}`,
  );
  console.log(
    JSON.stringify({
      model: which,
      preset: `${preset}${perChannel ? ' per-channel' : ''}${method ? ` ${method}` : ''}${fused ? ' fused functions' : ''}${saturationSafe ? ' saturation-safe weights' : ''}`,
      startCosine: +start.cosine.toFixed(5),
      mixedCosine: +plainScore.cosine.toFixed(5),
      adaroundCosine: tunedScore === null ? null : +tunedScore.toFixed(5),
      recovery: recoverySteps || null,
      searchSamples: searchSamples ?? samples,
      searchCosine: `${mixed.startCosine.toFixed(4)}→${mixed.cosine.toFixed(4)}`,
      act16: `${mixed.budget.act16.used}/${mixed.budget.act16.limit} of ${mixed.budget.act16.of}`,
      w16: `${mixed.budget.w16.used}/${mixed.budget.w16.limit} of ${mixed.budget.w16.of}`,
      float: `${mixed.budget.float.used}/${mixed.budget.float.limit} of ${mixed.budget.float.of}`,
      measurements: mixed.steps.length,
      searchSeconds: +searchSeconds.toFixed(0),
      tuneSeconds: tuneSeconds === null ? null : +tuneSeconds.toFixed(0),
      calibrationSeconds: +((t1 - t0) / 1000).toFixed(0),
      opset: `${opsetOf(model)}→${opset}`,
      webRuns,
      checker,
      topSensitivities: top.join('; '),
      chosen: JSON.stringify(mixed.chosen),
    }),
  );
}

/** The recovery steps run after the search, as the result line names them. */
const recoverySteps = [
  adaround &&
    `AdaRound${iterations ? ` ${iterations} it.` : ''}${earlyStop ? ' early stop' : ''}${tuneSamples ? ` on ${tuneSamples} samples` : ''}`,
  biasCorrection && 'bias correction',
]
  .filter(Boolean)
  .join(' + ');

await finish(plain.model, null, null);
if (adaround || biasCorrection) {
  const t2 = performance.now();
  const recovery = withOptions(mixed.config, {
    includeFastFt: adaround,
    includeBiasCorrection: biasCorrection,
    extraOptions: {
      FastFinetune: {
        OptimAlgorithm: 'adaround',
        ...(iterations ? { NumIterations: iterations } : {}),
        ...(earlyStop ? { EarlyStop: true } : {}),
      },
    },
  });
  const tuned = await quantizeWithRecovery(model, recovery, {
    calibrate: async () => ranges,
    runtime: nodeRuntime(tuneSamples ? calib.slice(0, tuneSamples) : calib),
    gramProduct: nodeGramProduct,
  });
  const tuneSeconds = (performance.now() - t2) / 1000;
  await finish(tuned.model, (await held.score(tuned.model)).cosine, tuneSeconds);
}
