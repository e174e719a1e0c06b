/**
 * Suite "fidelity": output cosine of each fixture detector quantized with each preset, on held-out COCO photos;
 * and the PP-OCRv4 text recognizer (attention blocks, CTC output) on held-out text lines: lines whose greedy
 * CTC decoding equals the float model's, CER against the float decoding, with and without the attention
 * rules and SmoothQuant; and automatic mixed precision (bench/cases/mixedPrecision.ts) on YOLOX-nano within the
 * default budget, before and after AdaRound (the PP-OCRv4 detector's: suite detector-8bit). QS_FIDELITY_ONLY=recognizer
 * (or =detectors, =mixed, =recognizer-mixed: the recognizer's mixed-precision rows only, =recognizer-fragility: the
 * float recognizer under input noise, what its text target tolerates, =recognizer-elimination: its stem taken to the
 * budget by backward elimination) re-measures one part and
 * keeps the other parts' rows from the last results file; with =recognizer-mixed, QS_FIDELITY_CASE='<variant> <arguments>' (a
 * case of RECOGNIZER_MIXED without its preset, e.g. 'attention+perChannel+mixed+bc method=MinMSE') re-measures that case only.
 */
import { previousRows, runCase, type Row, type Suite } from '../harness.ts';
import { recognizerPresetLabel } from '../cases/recognizerSetup.ts';

const PRESETS = ['XINT8', 'A8W8', 'A16W8', 'U8S8', 'S8S8'];
const CASES: [string, string[]][] = [
  ['ultraface-rfb-320.onnx', ['plain', 'tail']],
  ['yolox-nano.onnx', ['plain', 'tail', 'perChannel+tail']],
  ['yunet-n-dynamic.onnx', ['plain']],
];
const RECOGNIZER_PRESETS = ['XINT8', 'A8W8'];
const RECOGNIZER_VARIANTS = [
  'plain',
  'perChannel',
  'attention',
  'attention+perChannel',
  'attention+sq',
  'attention+perChannel+sq',
];
const RECOGNIZER = 'ch_PP-OCRv4_rec_infer.onnx';
/**
 * Recognizer with automatic mixed precision (default budget), alone and recovered: [preset, variant, case
 * arguments after them]. MinMSE ranges: on the calibration lines (00–15) the 8-bit model's step top-1 is 0.914
 * with MinMSE against 0.902 Percentile, 0.877 MinMax and 0.753 Entropy (chosen there, not on the judged lines).
 */
const RECOGNIZER_MIXED: [string, string, ...string[]][] = [
  ['A8W8', 'attention+perChannel+mixed+adaround'],
  ['A8W8', 'attention+perChannel+mixed+bc', 'method=MinMSE'],
  // AdaRound on the search's choice, 200 steps a layer (issue 15 lever b; bench/NOTEBOOK.md: Recovery and ranges on the windowed choice).
  ['A8W8', 'attention+perChannel+mixed+adaround', 'method=MinMSE', 'iterations=200'],
  // What a budget twice the default gives (issue 15: the figure just past the budget).
  ['A8W8', 'attention+perChannel+mixed+bc', 'method=MinMSE', 'budget=act16=0.2,w16=0.2,float=0.1'],
  // Float nodes searched beside 16 bits in one stage (the float budget spent where measurement says, not only after
  // 16 bits): issue 15's idea (c), measured and not made the default.
  ['A8W8', 'attention+perChannel+mixed+bc', 'method=MinMSE', 'stages=act16+w16+float'],
];
const isRecognizerMixed = (r: Row) => r.model === RECOGNIZER && String(r.variant).includes('mixed');
/** The recognizer mixed-precision cases this run measures (QS_FIDELITY_CASE narrows them to one). */
const recognizerMixedCases = () =>
  RECOGNIZER_MIXED.filter(
    (c) => !process.env.QS_FIDELITY_CASE || c.slice(1).join(' ') === process.env.QS_FIDELITY_CASE,
  );
/**
 * Whether a row comes from a case: its preset (with the case's method and budget, as recognizer.ts names it) and its variant
 * (the untuned row's is the case's without the recovery step).
 */
function fromCase(r: Row, [preset, variant, ...args]: readonly string[]): boolean {
  if (r.preset !== recognizerPresetLabel(preset, args)) return false;
  return r.variant === variant || `${r.variant}+${variant.split('+').pop()}` === variant;
}

/**
 * A recognizer mixed-precision case as rows: the chosen precisions alone (when the case also fine-tuned, its
 * untuned judgement), then as run; what the search chose and how the written file was checked in `detail`.
 */
function recognizerMixedRows(r: Row): Row[] {
  const detail =
    `16-bit activations ${r.act16}, 16-bit weights ${r.w16}, float ${r.float}; search ${r.searchCosine} in ${r.measurements} measurements (${r.searchSeconds} s)` +
    `${r.tuneSeconds === undefined ? '' : `; recovery in ${r.tuneSeconds} s`}; web ${r.webRuns}, checker ${r.checker} (recovered file)`;
  const { untunedLinesMatching, untunedCer, untunedStepTop1, ...row } = r;
  const untuned =
    untunedLinesMatching === undefined
      ? []
      : [
          {
            ...row,
            variant: String(r.variant).replace(/\+(adaround|adaquant|bc)$/, ''),
            linesMatching: untunedLinesMatching,
            cer: untunedCer,
            stepTop1: untunedStepTop1,
            detail,
          },
        ];
  return [...untuned, { ...row, detail }];
}
/**
 * Mixed precision, 8-bit per-channel A8W8 within the default budget: [model, case arguments]. The 8-bit tensors
 * take Entropy ranges (held-out before mixed precision, against MinMax: YOLOX 0.909 vs 0.826); the tensors widened to
 * 16 bits take the extremes calibration saw. The PP-OCRv4 text detector's mixed-precision rows are in suite
 * detector-8bit (suites/detector8bit.ts), beside its other 8-bit steps.
 */
const MIXED: [string, string[]][] = [['yolox-nano', ['A8W8', 'perChannel', 'adaround', 'max=60', 'method=Entropy']]];
const isMixed = (r: Row) => String(r.variant).startsWith('mixed precision');
/** The float recognizer under input noise of ± these image levels (bench/cases/recognizerFragility.ts): what the text target tolerates. */
const FRAGILITY_LEVELS = ['0.5', '1', '2'];
const isFragility = (r: Row) => r.model === RECOGNIZER && r.preset === 'float';
/**
 * The recognizer's stem taken to the default budget by backward elimination on the calibration lines
 * (bench/cases/recognizerElimination.ts): [preset, method, first activation groups, first weights, recovery].
 */
const RECOGNIZER_ELIMINATION: string[][] = [['A8W8', 'MinMSE', '15', '8', 'bc']];
const isElimination = (r: Row) => r.model === RECOGNIZER && String(r.variant).includes('elimination');

/** The case's line as suite rows: mixed precision alone, then with AdaRound where it ran (details in `detail`). */
export function mixedRows(r: Row): Row[] {
  const detail = `search ${r.searchCosine} in ${r.measurements} measurements (${r.searchSeconds} s); 16-bit activations ${r.act16}, 16-bit weights ${r.w16}, float ${r.float}; 8-bit start ${r.startCosine}; web ${r.webRuns}, checker ${r.checker}`;
  const base = { model: r.model, preset: r.preset, opset: r.opset, calibrationSeconds: r.calibrationSeconds, detail };
  const rows: Row[] = [{ ...base, variant: 'mixed precision', cosineMean: r.mixedCosine }];
  if (r.adaroundCosine !== null)
    rows.push({ ...base, variant: `mixed precision + ${r.recovery ?? 'AdaRound'}`, cosineMean: r.adaroundCosine });
  return rows;
}

/** The last run's rows that this run does not measure again (the harness's carry-over, dated). */
function carried(keep: (r: Row) => boolean): Row[] {
  return previousRows('fidelity').filter(keep);
}

export const fidelitySuite: Suite = {
  name: 'fidelity',
  title:
    'Fidelity to the float model: detectors by output cosine (calibrated on COCO 1–16, judged on COCO 17–24); ' +
    'the PP-OCRv4 recognizer by text (calibrated on textlines 00–15, judged on 16–31: lines decoding to the float text, CER against it, step top-1)',
  columns: [
    ['model', 'model'],
    ['preset', 'preset'],
    ['variant', 'variant'],
    ['cosineMean', 'mean cosine'],
    ['cosineMin', 'min cosine'],
    ['undefinedOutputs', 'all-zero outputs (cosine undefined)'],
    ['linesMatching', 'lines = float text'],
    ['cer', 'CER %'],
    ['stepTop1', 'step top-1'],
    ['floatNodes', 'float nodes'],
    ['opset', 'opset'],
    ['calibrationSeconds', 'calibration s'],
    ['detail', 'mixed precision'],
  ],
  async run() {
    const only = process.env.QS_FIDELITY_ONLY;
    const rows: Row[] = [];
    if (only === 'recognizer-fragility') {
      rows.push(...carried((r) => !isFragility(r)));
      for (const level of FRAGILITY_LEVELS) rows.push(await runCase('cases/recognizerFragility.ts', [level]));
      return rows;
    }
    if (only === 'recognizer-elimination') {
      rows.push(...carried((r) => !isElimination(r)));
      for (const args of RECOGNIZER_ELIMINATION)
        rows.push(...recognizerMixedRows(await runCase('cases/recognizerElimination.ts', args)));
      return rows;
    }
    if (only === 'recognizer' || only === 'mixed' || only === 'recognizer-mixed')
      rows.push(...carried((r) => r.model !== RECOGNIZER && !isMixed(r)));
    else {
      for (const [model, variants] of CASES) {
        for (const variant of variants)
          for (const preset of PRESETS) rows.push(await runCase('cases/fidelity.ts', [model, preset, variant]));
      }
    }
    if (only === 'detectors' || only === 'mixed') rows.push(...carried((r) => r.model === RECOGNIZER));
    else {
      const cases = recognizerMixedCases();
      // (Carried: the recognizer rows this run does not measure, the float model's fragility rows among them.)
      if (only === 'recognizer-mixed')
        rows.push(
          ...carried((r) => r.model === RECOGNIZER && (!isRecognizerMixed(r) || !cases.some((c) => fromCase(r, c)))),
        );
      else {
        for (const variant of RECOGNIZER_VARIANTS)
          for (const preset of RECOGNIZER_PRESETS) rows.push(await runCase('cases/recognizer.ts', [preset, variant]));
        for (const level of FRAGILITY_LEVELS) rows.push(await runCase('cases/recognizerFragility.ts', [level]));
        for (const args of RECOGNIZER_ELIMINATION)
          rows.push(...recognizerMixedRows(await runCase('cases/recognizerElimination.ts', args)));
      }
      for (const [preset, variant, ...args] of cases)
        rows.push(...recognizerMixedRows(await runCase('cases/recognizer.ts', [preset, variant, ...args])));
    }
    if (only === 'detectors' || only === 'recognizer' || only === 'recognizer-mixed') rows.push(...carried(isMixed));
    else
      for (const [model, args] of MIXED)
        rows.push(...mixedRows(await runCase('cases/mixedPrecision.ts', [model, ...args])));
    return rows;
  },
};
