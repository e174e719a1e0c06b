/**
 * The held-in method choice on a float16 model, its candidates judged as written (float16 Q/DQ scales) and in their
 * float32-scale form (the default, core/evaluate/judgedScaleForm.ts), from the same statistics: each form's held-in
 * cosines, the method chosen, the process CPU seconds of the candidates' builds and judged runs (statistics apart),
 * and the written file's sha256 (the form asked for: float16 scales). The forms alternate in order from repeat to
 * repeat, so neither always runs first.
 *
 * Targets: ISNet or any float16 model file with a folder of images (`<model.onnx> <images dir>`, preprocessed as
 * `--preprocess auto` does; the choice alone, nothing held out), or a benchmarked target of heldOutSplit.ts made
 * float16 here (float32ToFloat16, as tests/fp16-models.test.ts does), each written file judged held out at 'all' and
 * 'basic' against the float32 model.
 *
 * Usage: heldInJudgedForm.ts <target> [repeats] | <model.onnx> <images dir> [repeats]   Prints one JSON line.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { float32ToFloat16, withFloat32Interface } from '../../src/core/halfFloat/float16.ts';
import { presetWithMethod } from '../../src/core/quantize/presets.ts';
import type { CalibrationMethod, QuantConfig } from '../../src/core/quantize/config.ts';
import { quantizePrepared } from '../../src/core/quantize/quantizeModel.ts';
import { calibrateByHeldInChoice, heldInSummary } from '../../src/core/evaluate/calibrationMethodChoice.ts';
import type { TensorStates } from '../../src/core/calibrate/run/statistics.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { loadPreprocessArgument } from '../../src/cli/preprocessArgument.ts';
import { heldOutSplit, type Split } from './heldOutSplit.ts';

const args = process.argv.slice(2);
const [target] = args;
if (!target) throw new Error('usage: heldInJudgedForm.ts <target> [repeats] | <model.onnx> <images dir> [repeats]');
const images = args[1] !== undefined && Number.isNaN(Number(args[1])) ? args[1] : undefined;
const repeats = Number(args[images ? 2 : 1] ?? 1);
const preset = 'A8W8';

function imagesOnly(file: string, dir: string): Split {
  const model = decode(fs.readFileSync(file));
  const spec = loadPreprocessArgument('auto', model, file).spec;
  return { model, calib: imageFeeds(model, { dir }, spec).feeds, judge: async () => ({}), images: dir };
}
/**
 * The benchmarked target with its model in float16; held out, a written file is judged with float32 inputs and outputs
 * (Casts at its interface) against the float32 model it was made from, at the level judged.
 */
function asFloat16(split: Split): Split {
  return {
    ...split,
    model: float32ToFloat16(split.model),
    judge: (bytes, level) => split.judge(encode(withFloat32Interface(decode(bytes))), level),
  };
}
const split = images ? imagesOnly(target, images) : asFloat16(heldOutSplit(target));
const config = presetWithMethod(preset, undefined);

// The statistics, gathered once: both forms judge candidates calibrated by the same runs.
const passes = new Map<string, TensorStates[]>();
let statisticsCpu = 0;
const collect = async (indices: readonly number[], configs: readonly QuantConfig[]) => {
  const key = `${indices.join(',')}|${configs.map((c) => c.calibrationMethod).join(',')}`;
  let got = passes.get(key);
  if (!got) {
    const cpuStart = process.cpuUsage();
    const r = await calibrateOnFeeds(
      split.model,
      indices.map((i) => split.calib[i]),
      { config: configs[0], alsoFor: configs.slice(1) },
    );
    const cpu = process.cpuUsage(cpuStart);
    statisticsCpu += (cpu.user + cpu.system) / 1e6;
    passes.set(key, (got = [r.states, ...(r.alsoStates ?? [])]));
  }
  return got;
};

const sha = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex').slice(0, 16);
const FORMS = { written: (c: QuantConfig) => c, float32Scales: undefined } as const;
type Form = keyof typeof FORMS;
const results: Record<Form, { chosen: string; summary: string; cosines: object; cpu: number[]; sha256: string }> = {
  written: { chosen: '', summary: '', cosines: {}, cpu: [], sha256: '' },
  float32Scales: { chosen: '', summary: '', cosines: {}, cpu: [], sha256: '' },
};
const heldOut = new Map<string, object>();
for (let r = 0; r < repeats; r++) {
  const order: Form[] = r % 2 === 0 ? ['written', 'float32Scales'] : ['float32Scales', 'written'];
  for (const form of order) {
    const before = statisticsCpu;
    const cpuStart = process.cpuUsage();
    const held = await calibrateByHeldInChoice(split.model, {
      config,
      withMethod: (m: CalibrationMethod) => presetWithMethod(preset, m),
      configName: preset,
      samples: split.calib.length,
      collect,
      judgedForm: FORMS[form],
      judge: (indices) =>
        nodeRuntime(
          indices.map((i) => split.calib[i]),
          'all',
        ),
    });
    const cpu = process.cpuUsage(cpuStart);
    const bytes = encode(quantizePrepared(held.prepared, held.ranges, held.config, preset).model);
    const digest = sha(bytes);
    if (!images && !heldOut.has(digest)) {
      const [all, basic] = [await split.judge(bytes, 'all'), await split.judge(bytes, 'basic')];
      heldOut.set(digest, { all: all.cosine, basic: basic.cosine });
    }
    const res = results[form];
    Object.assign(res, {
      chosen: held.choice.chosen,
      summary: heldInSummary(held.choice),
      cosines: Object.fromEntries(held.choice.measured.map((m) => [m.method, m.cosine])),
      sha256: digest,
    });
    res.cpu.push(+((cpu.user + cpu.system) / 1e6 - (statisticsCpu - before)).toFixed(2));
  }
}

console.log(
  JSON.stringify({
    model: images ? target.split('/').pop() : `${target} (float16 version)`,
    images: split.images,
    samples: split.calib.length,
    statisticsCpuSeconds: +statisticsCpu.toFixed(1),
    ...results,
    sameChoice: results.written.chosen === results.float32Scales.chosen,
    sameBytes: results.written.sha256 === results.float32Scales.sha256,
    heldOut: Object.fromEntries(heldOut),
  }),
);
