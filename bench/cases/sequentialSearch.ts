/**
 * Sequential calibration with a choice after each round, measured, not adopted (issue 14's detector target; the
 * numbers are in bench/NOTEBOOK.md "Sequential with a choice after each round"). Runs a sequential calibration round by
 * round through the runner (core SequentialRound, as the page's workers and the CLI's shards run it) and, after
 * each round has gathered its depth group on the partly quantized model, changes that group's ranges by one of:
 *
 *   search-float        each tensor's range chosen among its candidates by its consumers' error on the partly
 *                       quantized model against the float model's consumer outputs (core sequentialSearch.ts)
 *   search-unquantized  the same, against the consumers fed the partly quantized value before its own quantization
 *   search-all-float    search-float over every tensor of the group the quantized model quantizes (not only those
 *                       Sequential gathers again: written-out HardSwish outputs keep their float-pass histograms)
 *   rules               one rule for the whole group (Sequential's, MinMax, MinMSE, percentiles 99.999 / 99.99,
 *                       search-float's choice, or Sequential's range scaled by 0.6 / 0.8 / 0.9 / 1.15 with
 *                       `scales`), the one with the least output error (1 − cosine, summed over samples) of the
 *                       whole quantized model against the float one, greedily, group after group
 *   none                Sequential as it is (a check that the rounds give the CLI's ranges)
 *
 * Searches and rule choices use the first `samples` calibration images (4 unless given). Writes the quantized
 * model; judge it with `qstudio evaluate <model> <written> --data <held-out> --preprocess <spec>`.
 * Usage: sequentialSearch.ts <model.onnx> <calib dir> <preprocess.json | fixture> <mode> <out.onnx> [per-tensor] [samples=N] [scales]
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode, sessionModel, type ModelProto } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { presetDefinition } from '../../src/core/quantize/presets.ts';
import { validateConfig, type QuantConfig } from '../../src/core/quantize/config.ts';
import { validatePreprocess } from '../../src/core/preprocess/spec.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import type { TensorRange } from '../../src/core/quantize/plan.ts';
import type { Feed } from '../../src/core/runtime/session.ts';
import { afterRound, rangesOf, type TensorStates } from '../../src/core/calibrate/run/statistics.ts';
import { leastError } from '../../src/core/calibrate/search/consumerSearch.ts';
import { searchPartlyQuantized, type SearchReference } from '../../src/core/calibrate/search/sequentialSearch.ts';
import { minMseSearch } from '../../src/core/calibrate/collectors/minmse.ts';
import { histogramQuantile } from '../../src/core/calibrate/histogram/histogramViews.ts';
import type { Histogram } from '../../src/core/calibrate/histogram/histogram.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { ortNodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { DETECTORS } from './detectors.ts';

const [modelFile, calibDir, specFile, mode, outFile, ...flags] = process.argv.slice(2);
const perChannel = !flags.includes('per-tensor');
const samplesWanted = Number(flags.find((f) => f.startsWith('samples='))?.slice(8) ?? 4);
const model: ModelProto = decode(fs.readFileSync(modelFile));
// A preprocessing file, or `fixture` for the fixture detectors' own (bench/cases/detectors.ts).
const spec =
  specFile === 'fixture'
    ? DETECTORS[path.basename(modelFile)].preprocess
    : (validatePreprocess(JSON.parse(fs.readFileSync(specFile, 'utf8'))) as PreprocessSpec);
const config: QuantConfig = validateConfig({
  ...presetDefinition('A8W8').input,
  calibrationMethod: 'Sequential',
  perChannel,
  enableNpuTransformer: true,
});
const runtime = ortNodeRuntime();
const quantType = config.activationType;
const symmetric = config.extraOptions.ActivationSymmetric;

const feeds = imageFeeds(model, { dir: calibDir }, spec).feeds;
const samples: Record<string, Feed>[] = feeds
  .slice(0, samplesWanted)
  .map((f) =>
    Object.fromEntries(
      Object.entries(f).map(([k, t]) => [
        k,
        { type: t.type as Feed['type'], data: t.data as Feed['data'], dims: t.dims },
      ]),
    ),
  );

/** Ranges a choice fixed, over the statistics' own. */
const fixed = new Map<string, TensorRange>();
const rangesNow = (states: TensorStates) => afterRound(rangesOf(states), fixed);

/** Summed 1 − cosine of the whole model's outputs quantized with `ranges`, against the float model's, over the samples. */
let floatOutputs: Record<string, Float32Array>[] | null = null;
async function outputError(ranges: ReadonlyMap<string, TensorRange>): Promise<number> {
  if (!floatOutputs) {
    const { runner } = await runtime.createSession(sessionModel(model), 'float');
    floatOutputs = [];
    for (const s of samples)
      floatOutputs.push(
        Object.fromEntries(Object.entries(await runner.run(s)).map(([k, v]) => [k, v.data as Float32Array])),
      );
    await runner.release();
  }
  const { runner } = await runtime.createSession(sessionModel(quantizeModel(model, ranges, config).model), 'quantized');
  let e = 0;
  for (let i = 0; i < samples.length; i++) {
    for (const [k, v] of Object.entries(await runner.run(samples[i]))) {
      const a = v.data as Float32Array;
      const b = floatOutputs[i][k];
      let ab = 0;
      let aa = 0;
      let bb = 0;
      for (let j = 0; j < a.length; j++) {
        ab += a[j] * b[j];
        aa += a[j] * a[j];
        bb += b[j] * b[j];
      }
      e += 1 - ab / Math.sqrt(aa * bb || 1);
    }
  }
  await runner.release();
  return e;
}

/** search-* modes: each tensor's least-error candidate. */
async function searched(
  group: Map<string, { hist: Histogram; current: TensorRange }>,
  ranges: Map<string, TensorRange>,
  reference: SearchReference,
  everyQuantized: boolean,
) {
  const quantized = quantizeModel(model, ranges, config).model;
  const found = await searchPartlyQuantized(
    model,
    quantized,
    group,
    { quantType, symmetric, reference, everyQuantized },
    runtime,
    samples,
  );
  const picks = new Map<string, TensorRange>();
  for (const [t, f] of found) {
    const c = f.candidates[leastError(f.errors)];
    picks.set(t, { min: c.min, max: c.max });
  }
  return picks;
}

const t0 = performance.now();
const first = await calibrateOnFeeds(model, feeds, { config, round: { index: 0, ranges: null } });
let states = first.states;
const rounds = first.rounds!;
for (let g = 1; g < rounds; g++) {
  const out = await calibrateOnFeeds(model, feeds, { config, round: { index: g, ranges: rangesNow(states) } });
  states = afterRound(states, out.states);
  if (mode === 'none' || out.states.size === 0) continue;
  const ranges = rangesNow(states);
  const groupOf = (tensors: Iterable<string>) => {
    const group = new Map<string, { hist: Histogram; current: TensorRange }>();
    for (const t of tensors) {
      const st = states.get(t);
      if (st && 'hist' in st && ranges.has(t)) group.set(t, { hist: st.hist, current: ranges.get(t)! });
    }
    return group;
  };
  const gathered = groupOf(out.states.keys());
  let picks: Map<string, TensorRange>;
  let note = '';
  if (mode === 'search-float' || mode === 'search-unquantized')
    picks = await searched(gathered, ranges, mode === 'search-float' ? 'float' : 'unquantized', false);
  else if (mode === 'search-all-float') picks = await searched(groupOf(rangesOf(states).keys()), ranges, 'float', true);
  else if (mode === 'rules') {
    const rules = new Map<string, Map<string, TensorRange>>();
    const byRule = (f: (h: Histogram, current: TensorRange) => TensorRange) =>
      new Map([...gathered].map(([t, x]) => [t, f(x.hist, x.current)]));
    rules.set(
      'minmax',
      byRule((h) => ({ min: h.min, max: h.max })),
    );
    rules.set(
      'minmse',
      byRule((h) => minMseSearch(h, { mode: 'Percentile', quantType, symmetric, numBins: 2048, sweep: true })),
    );
    for (const p of [99.999, 99.99]) {
      const cut = (100 - p) / 200;
      rules.set(
        `p${p}`,
        byRule((h) => ({
          min: Math.min(0, histogramQuantile(h, cut)),
          max: Math.max(0, histogramQuantile(h, 1 - cut)),
        })),
      );
    }
    rules.set('search-float', await searched(gathered, ranges, 'float', false));
    if (flags.includes('scales')) {
      for (const f of [0.6, 0.8, 0.9, 1.15]) {
        rules.set(
          `x${f}`,
          byRule((h, c) => ({
            min: Math.min(0, Math.max(c.min * f, h.min)),
            max: Math.max(0, Math.min(c.max * f, h.max)),
          })),
        );
      }
    }
    let bestName = 'sequential';
    let best = await outputError(ranges);
    const scores = [`sequential ${best.toPrecision(5)}`];
    for (const [name, r] of rules) {
      const e = await outputError(afterRound(ranges, r));
      scores.push(`${name} ${e.toPrecision(5)}`);
      if (e < best) [best, bestName] = [e, name];
    }
    picks = bestName === 'sequential' ? new Map() : rules.get(bestName)!;
    note = `${scores.join(', ')} → ${bestName}`;
  } else throw new Error(`unknown mode ${mode}`);
  let moved = 0;
  for (const [t, r] of picks) {
    if (r.min !== ranges.get(t)?.min || r.max !== ranges.get(t)?.max) moved++;
    fixed.set(t, r);
  }
  console.error(
    `round ${g} of ${rounds - 1}: ${gathered.size} tensors gathered, ${picks.size} chosen, ${moved} of them moved${note ? `; ${note}` : ''}`,
  );
}
const ranges = rangesNow(states);
fs.writeFileSync(outFile, encode(quantizeModel(model, ranges, config, 'A8W8').model));
console.log(
  JSON.stringify({
    mode,
    perChannel,
    samples: samples.length,
    rounds,
    chosen: fixed.size,
    seconds: +((performance.now() - t0) / 1000).toFixed(1),
  }),
);
