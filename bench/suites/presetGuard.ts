/**
 * Suite "preset-guard": each preset's held-out figure per benchmarked model at both onnxruntime levels ('all',
 * onnxruntime's default; 'basic', the model's own Q/DQ arithmetic), as bench/cases/presetHeldOut.ts measures it.
 * `npm run bench -- guard` measures them again and flags any that drops more than 0.002 (bench/guard.ts).
 * QS_GUARD_ONLY=<substring>[,<substring>…] measures only the matching cases (guardCaseWanted) and keeps the others'
 * recorded rows.
 */
import { previousRows, runCase, type Row, type Suite } from '../harness.ts';
import { guardKey } from '../guard.ts';

const PRESETS = ['XINT8', 'VINT8', 'A8W8', 'A16W8', 'U8S8', 'S8S8'];
export const GUARD_CASES: string[][] = [
  ...PRESETS.map((p) => ['ultraface-rfb-320.onnx', p]),
  ...PRESETS.map((p) => ['yolox-nano.onnx', p]),
  ['yolox-nano.onnx', 'A8W8', 'perChannel'],
  ['yunet-n-dynamic.onnx', 'A8W8'],
  ['yunet-n-dynamic.onnx', 'XINT8'],
  ['ppocr-det', 'A8W8'],
  ['ppocr-det', 'A8W8', 'perChannel'],
  ['ppocr-det', 'XINT8'],
  ['ppocr-det', 'U8S8'],
  ['ppocr-rec', 'A8W8'],
  ['ppocr-rec', 'XINT8'],
];

/**
 * Whether QS_GUARD_ONLY asks for a case: comma-separated parts, each a substring of the case's arguments joined by
 * spaces, or the whole of them where it ends in '$' ("ppocr-det A8W8$" is the per-tensor row alone).
 */
export function guardCaseWanted(args: readonly string[], only: string): boolean {
  const joined = args.join(' ');
  return only.split(',').some((o) => (o.endsWith('$') ? joined === o.slice(0, -1) : joined.includes(o)));
}

/** The guard's rows measured now (the cases matching QS_GUARD_ONLY, or all), each dated. */
export async function measureGuard(): Promise<Row[]> {
  const only = process.env.QS_GUARD_ONLY;
  const today = new Date().toISOString().slice(0, 10);
  const rows: Row[] = [];
  for (const args of GUARD_CASES) {
    if (only && !guardCaseWanted(args, only)) continue;
    rows.push({ ...(await runCase('cases/presetHeldOut.ts', args)), measured: today });
  }
  return rows;
}

/** The recorded rows with `rows` in place of the same keys. */
export function mergeGuardRows(rows: readonly Row[]): Row[] {
  const keys = new Set(rows.map(guardKey));
  return [...previousRows('preset-guard').filter((r) => !keys.has(guardKey(r))), ...rows];
}

export const presetGuardSuite: Suite = {
  name: 'preset-guard',
  title:
    "Each preset's held-out figure at onnxruntime's default ('all') and at 'basic': the regression guard (`npm run bench -- guard` flags a drop over 0.002)",
  columns: [
    ['model', 'model'],
    ['preset', 'preset'],
    ['variant', 'weights'],
    ['images', 'calibration / judged'],
    ['metric', 'figure'],
    ['all', "'all' (default)"],
    ['basic', "'basic'"],
    ['detail', 'detail'],
    ['measured', 'measured'],
  ],
  run: async () => mergeGuardRows(await measureGuard()),
};
