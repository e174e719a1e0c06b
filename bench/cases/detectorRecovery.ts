/**
 * The PP-OCRv4 text detector at 8 bits beyond range choice (issues 14 and 15): one calibration method's ranges,
 * then recovery steps on top (bias correction, AdaRound, CLE, functions quantized as one op), each configuration
 * judged by onnxruntime-node on the written model over textScenes' 21 held-out scenes; calibration and the
 * recovery steps see only the 16 calibration scenes (or the first N of them for the tuning steps).
 *
 * Usage: detectorRecovery.ts method=<calibration method> [perTensor] [fused] [bc] [adaround] [cle] [tune=<scenes>]
 *   [iterations=<n>] [earlyStop] [positions=<per scene>] [check]
 * Prints one JSON line: the plain cosine (ranges only) and the cosine after the steps asked for.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode, type ModelProto } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { presetDefinition } from '../../src/core/quantize/presets.ts';
import { validateConfig, withOptions, type QuantConfig } from '../../src/core/quantize/config.ts';
import { createOutputJudge } from '../../src/core/evaluate/outputJudge.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { rangeEntry, rangesFromTable, type RangeTable } from '../../src/core/calibrate/run/rangeTable.ts';
import type { Ranges } from '../../src/core/quantize/plan.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { float32Tensor, nodeRuntime, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { TEXT_DETECTOR, textSceneFeeds } from './textScenes.ts';
import { checkWrittenFile } from './writtenFile.ts';
import { caseNumber, caseOption } from './caseArguments.ts';

const flags = process.argv.slice(2);
const method = caseOption('method', flags) ?? 'MinMax';
const perChannel = !flags.includes('perTensor');
const fused = flags.includes('fused');
const bc = flags.includes('bc');
const adaround = flags.includes('adaround');
const cle = flags.includes('cle');
const tuneScenes = Number(caseOption('tune', flags) ?? 16);
const iterations = Number(caseOption('iterations', flags) ?? 1000);
/** Output positions sampled per scene and layer for the layer data (default: the configuration's, 128). */
const positions = caseNumber('positions', flags);
const root = path.resolve(import.meta.dirname, '../..');
const tmp = path.join(root, 'bench/tmp');
fs.mkdirSync(tmp, { recursive: true });

const model = decode(fs.readFileSync(TEXT_DETECTOR.model));
const input = model.graph!.input[0].name!;
const feeds = (set: 'calib' | 'judge'): Feeds[] =>
  textSceneFeeds(set).map((s) => ({ [input]: float32Tensor(s.data, s.dims) }));
const calib = feeds('calib');
const judge = await createOutputJudge(model, nodeRuntime(feeds('judge')));

const json = {
  ...presetDefinition('A8W8').input,
  calibrationMethod: method,
  perChannel,
  enableNpuTransformer: fused,
} as Record<string, unknown>;
const base: QuantConfig = validateConfig(json);

/** Ranges of a model on all calibration scenes, kept in bench/tmp by method (the unequalized model's only). */
async function calibrate(of: ModelProto, cacheable: boolean): Promise<Ranges> {
  const file = path.join(tmp, `det-ranges-${method}${fused ? '-fused' : ''}.json`);
  if (cacheable && fs.existsSync(file)) return rangesFromTable(JSON.parse(fs.readFileSync(file, 'utf8')) as RangeTable);
  const { ranges } = await calibrateOnTensors(
    of,
    calib.map((f) => Object.values(f)[0]),
    { config: base },
  );
  if (cacheable) {
    // Written whole then renamed: a case running beside this one never reads half a file.
    fs.writeFileSync(
      `${file}.${process.pid}`,
      JSON.stringify(Object.fromEntries([...ranges].map(([k, r]) => [k, rangeEntry(r)]))),
    );
    fs.renameSync(`${file}.${process.pid}`, file);
  }
  return ranges;
}

const t0 = performance.now();
const ranges = await calibrate(model, true);
const plain = (await judge.score(quantizeModel(model, ranges, base).model)).cosine;
const row: Record<string, unknown> = { method, perChannel, fused, plain: +plain.toFixed(5) };
if (bc || adaround || cle) {
  const config = withOptions(base, {
    includeBiasCorrection: bc,
    includeFastFt: adaround,
    includeCle: cle,
    extraOptions: {
      FastFinetune: {
        OptimAlgorithm: 'adaround',
        NumIterations: iterations,
        EarlyStop: flags.includes('earlyStop'),
        ...(positions ? { PositionsPerSample: positions } : {}),
      },
    },
  });
  const t1 = performance.now();
  const result = await quantizeWithRecovery(model, config, {
    calibrate: (m) => (cle ? calibrate(m, false) : Promise.resolve(ranges)),
    runtime: nodeRuntime(calib.slice(0, tuneScenes)),
    gramProduct: nodeGramProduct,
    onProgress: (p) => {
      if (p.phase === 'gather') process.stderr.write(`stage ${p.stage}/${p.stages}\r`);
    },
  });
  row.steps = [
    cle && 'CLE',
    adaround && `AdaRound ${iterations} it.${flags.includes('earlyStop') ? ' early stop' : ''}`,
    bc && 'bias correction',
  ]
    .filter(Boolean)
    .join(' + ');
  row.tuneScenes = tuneScenes;
  row.positions = config.extraOptions.FastFinetune.PositionsPerSample;
  row.recovered = +(await judge.score(result.model)).cosine.toFixed(5);
  row.recoverySeconds = +((performance.now() - t1) / 1000).toFixed(0);
  if (flags.includes('check')) {
    const written = path.join(tmp, `det-recovery-${method}.onnx`);
    const { webRuns, checker } = await checkWrittenFile(written, result.model, encode(result.model), {
      [input]: calib[0][input],
    });
    row.webRuns = webRuns;
    row.checker = checker;
  }
}
row.seconds = +((performance.now() - t0) / 1000).toFixed(0);
console.log(JSON.stringify(row));
