/**
 * Suite "suggest": the measured exclusion search on YOLOX-nano quantized with XINT8 and nothing excluded — which
 * layers the layer-wise comparison blames (and whether they are in the output tail), and what keeping them float
 * does to the output cosine on held-out photos. One row per measured step.
 */
import { runCase, type Row, type Suite } from '../harness.ts';

export const suggestSuite: Suite = {
  name: 'suggest',
  title:
    'Suggest exclusions on yolox-nano.onnx, XINT8, nothing excluded (calibrated on COCO 1–16, judged on COCO 17–24, 20 steps, target 0.99)',
  columns: [
    ['step', 'step'],
    ['change', 'tried'],
    ['layer', 'layer error (SQNR)'],
    ['inTail', 'in the output tail'],
    ['cosine', 'measured cosine'],
    ['kept', 'kept'],
    ['bestCosine', 'best so far'],
    ['seconds', 'seconds'],
  ],
  async run() {
    const r = (await runCase('cases/suggest.ts', ['yolox-nano.onnx', 'XINT8', '20'])) as unknown as { steps: Row[] };
    return r.steps;
  },
};
