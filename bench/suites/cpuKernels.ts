/**
 * Suite "cpu-kernels": each headline 8-bit model judged on held-out data twice, as the studio measures it
 * (onnxruntime-node at graph optimization 'basic', the model's own Q/DQ arithmetic, as onnxruntime-web runs it)
 * and as onnxruntime's CPU provider runs it by default ('all': Q/DQ fused into QLinearConv / QLinearMatMul / QGemm,
 * whose U8S8 pair products saturate in 16 bits on x86 CPUs without VNNI); each with and without saturation-safe
 * weights (7-bit codes only in the weight channels that could saturate, quantize/cpuKernelSafety.ts). Splits:
 * COCO 1–16 calibrate, 17–24 judged (YOLOX-nano, UltraFace); the text detector's 16 calibration and 21 held-out
 * scenes; the recognizer's text lines 00–15 and 16–31 (lines decoding to the float text, CER against it).
 * QS_CPU_KERNELS_ONLY=<substring> re-measures the matching cases and keeps the others' rows from the last results.
 * The `mixed` cases search mixed precision at the named level (with and without saturation-safe weights) first.
 */
import { previousRows, runCase, type Row, type Suite } from '../harness.ts';

const CASES: string[][] = [
  ['yolox', 'XINT8'],
  ['yolox', 'XINT8', 'perChannel'],
  ['yolox', 'A8W8'],
  ['yolox', 'A8W8', 'perChannel'],
  ['yolox', 'U8S8'],
  ['yolox', 'U8S8', 'perChannel'],
  ['ultraface', 'XINT8'],
  ['ultraface', 'XINT8', 'perChannel'],
  ['ultraface', 'A8W8'],
  ['ultraface', 'A8W8', 'perChannel'],
  ['ultraface', 'U8S8'],
  ['ultraface', 'U8S8', 'perChannel'],
  ['detector', 'XINT8', 'perChannel'],
  ['detector', 'A8W8'],
  ['detector', 'A8W8', 'perChannel'],
  ['recognizer', 'XINT8', 'perChannel', 'attention'],
  ['recognizer', 'A8W8', 'attention', 'method=MinMSE'],
  ['recognizer', 'A8W8', 'perChannel', 'attention', 'method=MinMSE'],
  // Mixed precision searched at each level (qstudio quantize --mixed-precision --judge-optimization), judged at both.
  ['recognizer', 'A8W8', 'perChannel', 'attention', 'method=MinMSE', 'mixed', 'search=basic'],
  ['recognizer', 'A8W8', 'perChannel', 'attention', 'method=MinMSE', 'mixed', 'search=all'],
];

/** The row's key: model, preset (with its method) and variant. */
export const cpuKernelsKey = (r: Row) => `${r.model} ${r.preset} ${r.variant}`;

/** A case's row with its text-judge columns (recognizer) folded into the cosine columns' places. */
function shown(r: Row): Row {
  const judged = (lines: unknown, cer: unknown) => `${lines}, CER ${cer} %`;
  type Search = { act16: number; w16: number; float: number; measurements: number };
  const choice = (x: unknown) =>
    x
      ? `${(x as Search).act16} / ${(x as Search).w16} / ${(x as Search).float} (${(x as Search).measurements} meas.)`
      : null;
  if (r.search) r = { ...r, mixedChoice: `${choice(r.search)}; safe: ${choice(r.safeSearch)}` };
  if (r.model !== 'recognizer') return r;
  return {
    ...r,
    basic: judged(r.basic, r.basicCer),
    all: judged(r.all, r.allCer),
    safeBasic: judged(r.safeBasic, r.safeBasicCer),
    safeAll: judged(r.safeAll, r.safeAllCer),
  };
}

export const cpuKernelsSuite: Suite = {
  name: 'cpu-kernels',
  title:
    "Held-out accuracy as the studio measures it ('basic') and as onnxruntime's CPU provider runs it by default ('all', fused int8 kernels; x86 without VNNI), without and with saturation-safe weights",
  columns: [
    ['model', 'model'],
    ['preset', 'preset'],
    ['variant', 'weights'],
    ['basic', "'basic'"],
    ['all', "'all' (CPU default)"],
    ['safeBasic', "safe weights, 'basic'"],
    ['safeAll', "safe weights, 'all'"],
    ['safeWeightsChanged', 'weights given 7-bit channels'],
    ['mixedChoice', 'mixed precision: 16-bit activations / weights / float nodes'],
    ['measured', 'measured'],
  ],
  async run() {
    const only = process.env.QS_CPU_KERNELS_ONLY;
    const today = new Date().toISOString().slice(0, 10);
    const previous = previousRows('cpu-kernels');
    const rows: Row[] = [];
    for (const args of CASES) {
      if (only && !args.join(' ').includes(only)) continue;
      rows.push(shown({ ...(await runCase('cases/cpuKernels.ts', args)), measured: today }));
    }
    const keys = new Set(rows.map(cpuKernelsKey));
    return [...previous.filter((r) => !keys.has(cpuKernelsKey(r))), ...rows];
  },
};
