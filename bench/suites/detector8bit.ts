/**
 * Suite "detector-8bit": the PP-OCRv4 text detector (the embedded sample) at 8 bits, A8W8 with per-channel weights
 * unless a row says per tensor, beyond the choice of ranges (issue 14) and with automatic mixed precision within the
 * default budget (issue 15). Every row calibrates (and tunes, and searches) on textScenes' 16 calibration scenes and
 * is judged by onnxruntime-node on the written model over its 21 held-out scenes (no line or background in common).
 *   - cases/detectorRecovery.ts: a calibration method's ranges, then bias correction, AdaRound, functions quantized
 *     as one op (`fused`), alone and combined.
 *   - cases/mixedPrecision.ts: the mixed-precision search (sensitivity on a few calibration scenes), then AdaRound or
 *     bias correction on the chosen precisions.
 * QS_DETECTOR_ONLY=<substring>|<substring>… re-measures the cases whose arguments contain one of them and carries
 * the others over from the last results (dated). QS_DETECTOR_JOBS=<n> runs n cases at a time (default 1: on a shared
 * machine two at a time halve the wall time of the suite, not its CPU time).
 */
import { previousRows, runCase, type Row, type Suite } from '../harness.ts';

/**
 * The cases, in the order they are started: [script, arguments]. AdaRound tunes on the first 4 calibration scenes with
 * early stop (finetune-cost: 0.927 against 0.929 without it on XINT8, at 0.71× its CPU).
 */
const CASES: [string, string[]][] = [
  ['detectorRecovery.ts', ['method=Entropy', 'adaround', 'tune=4', 'earlyStop']],
  [
    'mixedPrecision.ts',
    ['ppocr-det', 'A8W8', 'perChannel', 'max=40', 'method=Entropy', 'fused', 'adaround', 'tune=4', 'earlyStop'],
  ],
  ['detectorRecovery.ts', ['method=Entropy', 'bc']],
  ['detectorRecovery.ts', ['method=Entropy', 'fused', 'adaround', 'tune=4', 'earlyStop']],
  ['detectorRecovery.ts', ['method=Percentile', 'fused', 'adaround', 'tune=4', 'earlyStop']],
  ['detectorRecovery.ts', ['method=Entropy', 'perTensor', 'adaround', 'tune=4', 'earlyStop']],
  ['mixedPrecision.ts', ['ppocr-det', 'A8W8', 'perChannel', 'max=40', 'method=Entropy', 'fused', 'bc']],
  ['mixedPrecision.ts', ['ppocr-det', 'A8W8', 'perChannel', 'max=40', 'method=Entropy', 'fused', 'samples=8']],
  ['mixedPrecision.ts', ['ppocr-det', 'A8W8', 'perChannel', 'max=40', 'method=Entropy', 'bc']],
  [
    'mixedPrecision.ts',
    ['ppocr-det', 'A8W8', 'perChannel', 'max=40', 'method=Entropy', 'adaround', 'tune=4', 'earlyStop'],
  ],
  [
    'mixedPrecision.ts',
    ['ppocr-det', 'A8W8', 'perChannel', 'max=40', 'method=Entropy', 'fused', 'adaround', 'tune=4', 'earlyStop', 'bc'],
  ],
  [
    'mixedPrecision.ts',
    ['ppocr-det', 'A8W8', 'perChannel', 'max=40', 'method=Entropy', 'adaround', 'tune=4', 'earlyStop', 'bc'],
  ],
];

const caseName = (script: string, args: readonly string[]) => `${script} ${args.join(' ')}`;
/** The calibration method a case names (its `method=` argument). */
const methodOf = (name: string) => /\bmethod=(\w+)/.exec(name)?.[1] ?? '';

/** A recovery case's line as rows: the ranges alone, then with the steps. */
function recoveryRows(r: Row, name: string): Row[] {
  const base = {
    case: name,
    method: r.method,
    weights: r.perChannel ? 'per channel' : 'per tensor',
    functions: r.fused ? 'one op' : 'written out',
  };
  const rows: Row[] = [{ ...base, steps: 'ranges only', cosine: r.plain }];
  if (r.recovered !== undefined)
    rows.push({
      ...base,
      steps: String(r.steps),
      tuneScenes: r.tuneScenes,
      cosine: r.recovered,
      seconds: r.recoverySeconds,
    });
  return rows;
}

/** A mixed-precision case's line as rows: the 8-bit start, the chosen precisions, then the recovery on them. */
function mixedRows(r: Row, name: string): Row[] {
  const detail = `16-bit activations ${r.act16}, 16-bit weights ${r.w16}, float ${r.float}; search on ${r.searchSamples} scenes ${r.searchCosine} in ${r.measurements} measurements (${r.searchSeconds} s); web ${r.webRuns}, checker ${r.checker}`;
  const base = {
    case: name,
    method: methodOf(name),
    weights: 'per channel',
    functions: String(r.preset).includes('fused') ? 'one op' : 'written out',
    detail,
  };
  const rows: Row[] = [
    { ...base, steps: 'ranges only', cosine: r.startCosine },
    { ...base, steps: 'mixed precision', cosine: r.mixedCosine, seconds: r.searchSeconds },
  ];
  if (r.adaroundCosine !== null && r.adaroundCosine !== undefined)
    rows.push({ ...base, steps: `mixed precision + ${r.recovery}`, cosine: r.adaroundCosine, seconds: r.tuneSeconds });
  return rows;
}

export const detector8bitSuite: Suite = {
  name: 'detector-8bit',
  title:
    'PP-OCRv4 text detector at 8 bits (A8W8): ranges, recovery steps and mixed precision within the default budget; 16 calibration scenes, 21 held-out scenes (onnxruntime-node judge)',
  columns: [
    ['method', 'ranges'],
    ['weights', 'weights'],
    ['functions', 'HardSwish/HardSigmoid·Mul'],
    ['steps', 'steps'],
    ['tuneScenes', 'tuned on scenes'],
    ['cosine', 'held-out cosine'],
    ['seconds', 'steps s'],
    ['detail', 'mixed precision'],
    ['case', 'case'],
    ['measured', 'measured'],
  ],
  async run() {
    const only = process.env.QS_DETECTOR_ONLY?.split('|').filter(Boolean);
    const runs = (name: string) => !only || only.some((o) => name.includes(o));
    const today = new Date().toISOString().slice(0, 10);
    const results = new Map<string, Row[]>();
    const queue = CASES.filter(([script, args]) => runs(caseName(script, args)));
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [script, args] = next;
        const name = caseName(script, args);
        try {
          const line = await runCase(`cases/${script}`, args);
          results.set(
            name,
            (script === 'mixedPrecision.ts' ? mixedRows(line, name) : recoveryRows(line, name)).map((r) => ({
              ...r,
              measured: today,
            })),
          );
        } catch (e) {
          // One failed case is a row saying so; the others still land in the table.
          results.set(name, [
            { case: name, steps: 'failed', detail: e instanceof Error ? e.message : String(e), measured: today },
          ]);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Number(process.env.QS_DETECTOR_JOBS ?? 1)) }, worker));
    // Read after the cases ran, so that two runs re-measuring different cases keep each other's rows.
    const previous = only ? previousRows('detector-8bit') : [];
    // The ranges column from the case's arguments, for carried rows too (rows recorded before it was derived so).
    return CASES.flatMap(([script, args]) =>
      (results.get(caseName(script, args)) ?? previous.filter((r) => r.case === caseName(script, args))).map((r) =>
        r.method === undefined ? r : { ...r, method: methodOf(String(r.case)) },
      ),
    );
  },
};
