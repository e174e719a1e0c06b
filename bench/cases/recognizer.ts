/**
 * How a quantized CTC text recognizer (PP-OCRv4's, SVTR attention blocks) keeps its float model's text:
 * calibrate on text lines 00–15 of ../shared/fixtures/images/textlines, judge on lines 16–31 (held out)
 * by onnxruntime-node running the written model; both models' outputs decoded by greedy CTC; lines whose
 * decoding equals the float model's, the character error rate against the float decoding (pooled), the
 * step top-1 agreement. Usage: recognizer.ts <preset> <variant>, variant a '+'-joined list of
 * 'perChannel', 'attention' (the transformer rules: LayerNormalization, Softmax's known range, …),
 * 'sq' (SmoothQuant), or 'plain'.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeWithRecovery } from '../../src/core/recover/quantizeWithRecovery.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { configToJSON, validateConfig } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { decodeImageFile } from '../../src/cli/images/decode.ts';
import { imageToTensor } from '../../src/core/preprocess/toTensor.ts';
import { validatePreprocess } from '../../src/core/preprocess/spec.ts';
import { sequenceAgreement, ctcGreedyDecode, characterErrorRate } from '../../src/core/metrics/sequence.ts';
import { editDistance } from '../../src/core/editDistance.ts';
import { createSession, float32Tensor, nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { RECOGNIZER_PATH, recognizerVariant } from './recognizerSetup.ts';
import type { ModelProto } from '../../src/core/onnx/model.ts';

const [preset, variant = 'plain'] = process.argv.slice(2);
const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const dir = path.join(import.meta.dirname, '../../../shared/fixtures/images/textlines');
const lines = fs.readdirSync(dir).filter((f) => f.endsWith('.png')).sort().map((f) => path.join(dir, f));
const calibration = lines.slice(0, 16);
const evaluation = lines.slice(16, 32);
// PaddleOCR's recognizer preprocessing: BGR, (x / 255 − 0.5) / 0.5, 48 × 320.
const spec = validatePreprocess({ resize: 'stretch', channelOrder: 'BGR', scale: 1 / 255, mean: [0.5], std: [0.5], dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 320 } });

const base = JSON.parse(configToJSON(getPreset(preset)));
const options = recognizerVariant(variant);
if (options.perChannel) base.perChannel = true;
if (process.env.QS_METHOD) base.calibrationMethod = process.env.QS_METHOD;
const config = validateConfig({ ...base, ...options.config, extraOptions: { ...base.extraOptions, ...options.config.extraOptions } });

const tensorOf = (file: string) => {
  const t = imageToTensor(decodeImageFile(file), [1, 3, 48, 320], spec);
  return float32Tensor(t.data, t.dims);
};
const calibrationTensors = calibration.map(tensorOf);
let calibrationSeconds = 0;
const { model: quantized, report, recovery } = await quantizeWithRecovery(model, config, {
  calibrate: async (m: ModelProto) => {
    const t = performance.now();
    const { ranges } = await calibrateOnTensors(m, calibrationTensors, { config });
    calibrationSeconds += (performance.now() - t) / 1000;
    return ranges;
  },
  runtime: nodeRuntime(calibrationTensors.map((x) => ({ x }))),
  configName: preset,
});
const bytes = encode(quantized);
if (process.env.QS_WRITE) fs.writeFileSync(process.env.QS_WRITE, bytes);
const floatSession = await createSession(encode(model));
const quantSession = await createSession(bytes);
let matches = 0, steps = 0, stepMatches = 0, errors = 0, chars = 0;
for (const file of evaluation) {
  const feeds = { x: tensorOf(file) };
  const a = Object.values(await floatSession.run(feeds))[0];
  const b = Object.values(await quantSession.run(feeds))[0];
  const s = sequenceAgreement(a.data as Float32Array, b.data as Float32Array, a.dims as number[]);
  matches += s.sequenceMatches;
  steps += s.steps;
  stepMatches += s.stepMatches;
  errors += s.charErrors;
  chars += s.referenceChars;
  if (process.env.QS_VERBOSE) {
    const [, T, C] = a.dims as number[];
    const fa = ctcGreedyDecode(a.data as Float32Array, 0, T, C), fb = ctcGreedyDecode(b.data as Float32Array, 0, T, C);
    console.error(path.basename(file), fa.join(','), '|', fb.join(','), editDistance(fa, fb));
  }
}
console.log(JSON.stringify({
  model: 'ch_PP-OCRv4_rec_infer.onnx',
  preset,
  variant,
  linesMatching: `${matches}/${evaluation.length}`,
  cer: +(100 * characterErrorRate(errors, chars)).toFixed(2),
  stepTop1: +(stepMatches / steps).toFixed(4),
  floatNodes: report.counts.float,
  activationPairs: report.counts.activationPairs,
  opset: `${report.opset.before}→${report.opset.after}`,
  smoothed: recovery.smoothQuant?.tensors.length ?? 0,
  calibrationSeconds: +calibrationSeconds.toFixed(1),
}));
