/**
 * `npm run bench [suite...]`: runs the benchmark suites (all when none is named), writing
 * bench/results/<suite>.json and the tables in bench/README.md.
 */
import { record, type Suite } from './harness.ts';
import { onnxIoSuite } from './suites/onnxIo.ts';
import { quantizeSuite } from './suites/quantize.ts';
import { fidelitySuite } from './suites/fidelity.ts';
import { calibrationMethodsSuite, calibrationSuite } from './suites/calibration.ts';
import { calibrationSpeedSuite } from './suites/calibrationSpeed.ts';
import { calibrationLargeInputSuite } from './suites/calibrationLargeInput.ts';
import { evaluationSuite } from './suites/evaluation.ts';
import { suggestSuite } from './suites/suggest.ts';
import { ladderSuite } from './suites/ladder.ts';
import { recoverSuite } from './suites/recover.ts';
import { finetuneCostSuite } from './suites/finetuneCost.ts';
import { recoverBrowserSuite } from './suites/recoverBrowser.ts';
import { graphSuite } from './suites/graph.ts';
import { graphFirstDrawSuite } from './suites/graphFirstDraw.ts';
import { sampleSuite } from './suites/sample.ts';
import { sampleSettingsSuite } from './suites/sampleSettings.ts';
import { largeModelSuite } from './suites/largeModel.ts';
import { largeModelPageSuite } from './suites/largeModelPage.ts';
import { detector8bitSuite } from './suites/detector8bit.ts';
import { detectorTargetsSuite } from './suites/detectorTargets.ts';
import { cpuKernelsSuite } from './suites/cpuKernels.ts';
import { compareSuite } from './suites/compare.ts';
import { npmCorpusSuite } from './suites/npmCorpus.ts';
import { isnetMaskSuite } from './suites/isnetMask.ts';
import { measureGuard, mergeGuardRows, presetGuardSuite } from './suites/presetGuard.ts';
import { compareGuardRows, guardText } from './guard.ts';
import { presetMethodsSuite } from './suites/presetMethods.ts';
import { webgpuBrowserSuite } from './suites/webgpuBrowser.ts';
import { previousRows } from './harness.ts';

const suites: Suite[] = [
  onnxIoSuite,
  quantizeSuite,
  calibrationSuite,
  calibrationMethodsSuite,
  calibrationSpeedSuite,
  calibrationLargeInputSuite,
  fidelitySuite,
  evaluationSuite,
  suggestSuite,
  ladderSuite,
  recoverSuite,
  finetuneCostSuite,
  recoverBrowserSuite,
  graphSuite,
  graphFirstDrawSuite,
  sampleSuite,
  sampleSettingsSuite,
  largeModelSuite,
  largeModelPageSuite,
  detector8bitSuite,
  detectorTargetsSuite,
  cpuKernelsSuite,
  compareSuite,
  npmCorpusSuite,
  isnetMaskSuite,
  presetGuardSuite,
  presetMethodsSuite,
  webgpuBrowserSuite,
];

// `npm run bench -- guard [--record]`: the regression guard. Measures every preset's held-out figure again
// (suite preset-guard; QS_GUARD_ONLY narrows it), flags any that dropped more than 0.002 from the last recorded
// one and exits 1 if one did; records the new figures only when none dropped, or with --record.
if (process.argv[2] === 'guard') {
  const measured = await measureGuard();
  const lines = compareGuardRows(previousRows(presetGuardSuite.name), measured);
  process.stdout.write(guardText(lines));
  const dropped = lines.some((l) => l.dropped);
  if (!dropped || process.argv.includes('--record')) record(presetGuardSuite, mergeGuardRows(measured));
  process.exit(dropped ? 1 : 0);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !suites.some((s) => s.name === w));
if (unknown.length) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${suites.map((s) => s.name).join(', ')}`);
  process.exit(1);
}
for (const suite of suites.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  console.log(`== ${suite.name}`);
  const rows = await suite.run();
  for (const r of rows) console.log(JSON.stringify(r));
  record(suite, rows);
}
