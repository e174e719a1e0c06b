/** Suite "fidelity": output cosine of each fixture detector quantized with each preset, on held-out COCO photos. */
import { runCase, type Suite } from '../harness.ts';

const PRESETS = ['XINT8', 'A8W8', 'A16W8', 'U8S8', 'S8S8'];
const CASES: [string, string[]][] = [
  ['ultraface-rfb-320.onnx', ['plain', 'tail']],
  ['yolox-nano.onnx', ['plain', 'tail', 'perChannel+tail']],
  ['yunet-n-dynamic.onnx', ['plain']],
];

export const fidelitySuite: Suite = {
  name: 'fidelity',
  title: 'Output cosine similarity to the float model (calibrated on COCO 1–16, judged on COCO 17–24)',
  columns: [
    ['model', 'model'],
    ['preset', 'preset'],
    ['variant', 'variant'],
    ['cosineMean', 'mean cosine'],
    ['cosineMin', 'min cosine'],
    ['undefinedOutputs', 'all-zero outputs (cosine undefined)'],
    ['floatNodes', 'float nodes'],
    ['opset', 'opset'],
    ['calibrationSeconds', 'calibration s'],
  ],
  async run() {
    const rows = [];
    for (const [model, variants] of CASES) {
      for (const variant of variants) for (const preset of PRESETS) rows.push(await runCase('cases/fidelity.ts', [model, preset, variant]));
    }
    return rows;
  },
};
