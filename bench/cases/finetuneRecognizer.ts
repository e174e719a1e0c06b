/**
 * What a fine-tuning rung costs on the PP-OCRv4 recognizer, and what it reads held out, as the ladder runs it:
 * A8W8 per channel with the attention rules, AdaRound on text lines 00–15 (one calibration, shared by every variant
 * of the run, as the ladder shares it across rungs), judged on lines 16–31 by onnxruntime-node on the written bytes
 * at 'all' and 'basic'. Each variant gets a fresh float-row cache, or with `shared` one cache for the run as the
 * command line's ladder keeps it (1 GiB: a later variant gathers no float rows). Variants: plain (no fine-tuning), full,
 * early (FastFinetune EarlyStop, the plateau rule), min=<θ> (RecoveryOptions.minRoundingError), and early+min=<θ>.
 * With `adaquant` the variants fine-tune by AdaQuant instead of AdaRound.
 * Usage: finetuneRecognizer.ts <iterations> [shared] [adaquant] <variant> [<variant> …]
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { FloatRowCache } from '../../src/core/recovery/floatRowCache.ts';
import { SensitivityCache } from '../../src/core/recovery/sensitiveLayers.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { nodeDenseProduct } from '../../src/cli/runtime/denseProduct.ts';
import type { Ranges } from '../../src/core/quantize/plan.ts';
import { createTextJudge, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { finetuneVariant, sensitiveFigures, stageSeconds } from './finetuneVariants.ts';
import { profiledVariant } from './variantProfile.ts';

const [iterationArg, ...rest] = process.argv.slice(2);
const sharedRows = rest[0] === 'shared' ? new FloatRowCache(2 ** 30) : undefined;
// With `shared`, the layers' added noise is kept across variants too, by plain configuration, as the ladder keeps it.
const sharedNoise = sharedRows ? new SensitivityCache() : undefined;
const afterShared = sharedRows ? rest.slice(1) : rest;
const algorithm = afterShared[0] === 'adaquant' ? 'adaquant' : 'adaround';
const variants = algorithm === 'adaquant' ? afterShared.slice(1) : afterShared;
const iterations = Number(iterationArg);
const floatBytes = fs.readFileSync(RECOGNIZER_PATH);
const model = decode(floatBytes);
const { calibration, evaluation } = textLineFiles();
const tensors = calibration.map(textLineTensor);
const runtime = nodeRuntime(tensors.map((x) => ({ x })));
const base = withOptions(getPreset('A8W8'), { perChannel: true, enableNpuTransformer: true });
let ranges: Promise<Ranges> | undefined;
const judgeAll = await createTextJudge(floatBytes, evaluation, 'all');
const judgeBasic = await createTextJudge(floatBytes, evaluation, 'basic');

for (const variant of variants) {
  const { tune, config, recoveryOptions } = finetuneVariant(base, variant, algorithm, iterations);
  const load = os.loadavg()[0];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const result = await profiledVariant(variant, () =>
    quantizeWithRecovery(model, config, {
      calibrate: (m) => (ranges ??= calibrateOnTensors(m, tensors, { config: base }).then((r) => r.ranges)),
      runtime,
      gramProduct: nodeGramProduct,
      denseProduct: nodeDenseProduct,
      floatRowCache: sharedRows ?? new FloatRowCache(),
      sensitivityCache: sharedNoise,
      configName: variant,
      ...recoveryOptions,
    }),
  );
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const bytes = encode(result.model);
  const all = await judgeAll(bytes);
  const basic = await judgeBasic(bytes);
  const ft = result.recovery.finetune;
  console.log(
    JSON.stringify({
      model: 'ch_PP-OCRv4_rec_infer.onnx',
      variant,
      algorithm: ft?.algorithm ?? null,
      sensitive: sensitiveFigures(result),
      floatRows: sharedRows ? 'shared' : 'fresh',
      iterations: tune ? iterations : 0,
      ...stageSeconds(result, wall, cpu),
      writtenSha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
      layers: ft ? ft.layers.length + (ft.untuned?.length ?? 0) + (ft.unselected?.length ?? 0) : 0,
      tunedLayers: ft ? ft.layers.filter((l) => l.iterations > 0).length : 0,
      untunedErrors: ft?.untuned?.map((u) => +u.roundingError.toPrecision(2)).sort((a, b) => a - b),
      steps: ft ? ft.layers.reduce((a, l) => a + l.iterations, 0) : 0,
      lossBefore: ft ? +ft.lossBefore.toPrecision(4) : null,
      lossAfter: ft ? +ft.lossAfter.toPrecision(4) : null,
      linesAll: all.linesMatching,
      cerAll: all.cer,
      linesBasic: basic.linesMatching,
      cerBasic: basic.cer,
      loadAverage: +load.toFixed(1),
    }),
  );
}
