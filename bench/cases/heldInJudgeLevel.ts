/**
 * The held-in method choice judged at onnxruntime's 'all' (the default) and at 'basic' on one benchmarked model
 * (bench/cases/heldOutSplit.ts), from the same statistics: each level's held-in cosines, the method chosen, the
 * seconds the choice took (the candidates' builds and judged runs, the statistics apart), the written model's bytes
 * (sha256) and its held-out figure at both levels (it loads and runs at both). Also which candidates' ranges equal
 * another's (a candidate that could be skipped without building or running it).
 *
 * With a model file and a folder of images instead of a target (ISNet: `<isnet_fp16.onnx> <3 photos>`, preprocessed
 * as `--preprocess auto` does), the choice alone: no held-out split, the written file is only hashed.
 *
 * Usage: heldInJudgeLevel.ts <target> | <model.onnx> <images dir>   Prints one JSON line.
 */
import crypto from 'node:crypto';
import { encode } from '../../src/core/onnx/index.ts';
import { presetWithMethod } from '../../src/core/quantize/presets.ts';
import type { CalibrationMethod, QuantConfig } from '../../src/core/quantize/config.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { calibrateByHeldInChoice, heldInSummary } from '../../src/core/evaluate/calibrationMethodChoice.ts';
import { rangesOf, type TensorStates } from '../../src/core/calibrate/run/statistics.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import { heldOutSplit, type Split } from './heldOutSplit.ts';
import { decode } from '../../src/core/onnx/index.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { loadPreprocessArgument } from '../../src/cli/preprocessArgument.ts';
import fs from 'node:fs';

const [target, images] = process.argv.slice(2);
if (!target) throw new Error('usage: heldInJudgeLevel.ts <target> | <model.onnx> <images dir>');
const preset = 'A8W8';
/** A model file judged on nothing held out: its calibration images alone. */
function imagesOnly(file: string, dir: string): Split {
  const model = decode(fs.readFileSync(file));
  const spec = loadPreprocessArgument('auto', model, file).spec;
  return { model, calib: imageFeeds(model, { dir }, spec).feeds, judge: async () => ({}), images: dir };
}
const split = images ? imagesOnly(target, images) : heldOutSplit(target);
const config = presetWithMethod(preset, undefined);
// Each pass's statistics, kept: both levels judge candidates calibrated by the same runs.
const passes = new Map<string, TensorStates[]>();
let statisticsMs = 0;
let statisticsCpu = 0;
const collect = async (indices: readonly number[], configs: readonly QuantConfig[]) => {
  const key = `${indices.join(',')}|${configs.map((c) => c.calibrationMethod).join(',')}`;
  let got = passes.get(key);
  if (!got) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const r = await calibrateOnFeeds(
      split.model,
      indices.map((i) => split.calib[i]),
      { config: configs[0], alsoFor: configs.slice(1) },
    );
    statisticsMs += performance.now() - start;
    const cpu = process.cpuUsage(cpuStart);
    statisticsCpu += (cpu.user + cpu.system) / 1000;
    passes.set(key, (got = [r.states, ...(r.alsoStates ?? [])]));
  }
  return got;
};

const sha = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex').slice(0, 16);
const byLevel: Record<string, unknown> = {};
// The held-out figures of each written file (the same bytes judge the same).
const judged = new Map<string, { all: unknown; basic: unknown }>();
for (const level of (process.env.QS_LEVELS ?? 'all,basic').split(',') as GraphOptimization[]) {
  const before = statisticsMs;
  const beforeCpu = statisticsCpu;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const held = await calibrateByHeldInChoice(split.model, {
    config,
    withMethod: (m: CalibrationMethod) => presetWithMethod(preset, m),
    configName: preset,
    samples: split.calib.length,
    collect,
    judge: (indices) =>
      nodeRuntime(
        indices.map((i) => split.calib[i]),
        level,
      ),
  });
  const choiceSeconds = (performance.now() - start - (statisticsMs - before)) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const choiceCpuSeconds = ((cpu.user + cpu.system) / 1000 - (statisticsCpu - beforeCpu)) / 1000;
  const bytes = encode(quantizeModel(split.model, held.ranges, held.config, preset).model);
  let heldOut = judged.get(sha(bytes));
  if (!heldOut && !images) {
    const [all, basic] = [await split.judge(bytes, 'all'), await split.judge(bytes, 'basic')];
    judged.set(sha(bytes), (heldOut = { all: all.cosine ?? all.stepTop1, basic: basic.cosine ?? basic.stepTop1 }));
  }
  byLevel[level] = {
    chosen: held.choice.chosen,
    summary: heldInSummary(held.choice),
    cosines: Object.fromEntries(held.choice.measured.map((m) => [m.method, m.cosine])),
    choiceSeconds: +choiceSeconds.toFixed(1),
    choiceCpuSeconds: +choiceCpuSeconds.toFixed(1),
    bytes: bytes.length,
    sha256: sha(bytes),
    heldOut,
  };
}

// Which candidates' ranges (on the even samples) equal another's, and how many tensors agree.
const methods: CalibrationMethod[] = ['MinMax', 'MinMSE', 'Entropy', 'Percentile'];
const evenKey = [...passes.keys()][0];
const ranges = passes.get(evenKey)!.map((s) => rangesOf(s));
const equalRanges: string[] = [];
for (let i = 0; i < ranges.length; i++)
  for (let j = i + 1; j < ranges.length; j++) {
    let same = 0;
    for (const [name, r] of ranges[i]) {
      const o = ranges[j].get(name);
      if (o && o.min === r.min && o.max === r.max) same++;
    }
    equalRanges.push(`${methods[i]}=${methods[j]}: ${same}/${ranges[i].size}`);
  }

console.log(
  JSON.stringify({
    model: target,
    statisticsSeconds: +(statisticsMs / 1000).toFixed(1),
    statisticsCpuSeconds: +(statisticsCpu / 1000).toFixed(1),
    ...byLevel,
    equalRanges,
  }),
);
