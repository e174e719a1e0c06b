/**
 * Suite "recover": each fixture detector quantized with XINT8, plain and with one accuracy-recovery step (CLE,
 * bias correction, AdaRound, AdaQuant): output cosine on held-out COCO photos and the time of each step in Node.
 */
import { runCase, type Suite } from '../harness.ts';

const MODELS = ['yolox-nano.onnx', 'ultraface-rfb-320.onnx', 'yunet-n-dynamic.onnx'];
const VARIANTS = ['plain', 'cle', 'biasCorrection', 'adaround', 'adaquant'];
/** Optimizer steps per layer: enough for the loss to settle on these layers, a fixture in minutes on 2 cores. */
export const BENCH_ITERATIONS = '100';

export const recoverSuite: Suite = {
  name: 'recover',
  title: 'Accuracy recovery on XINT8: output cosine on COCO 17–24 (tuned on COCO 1–16) and time per step (Node)',
  columns: [
    ['model', 'model'],
    ['variant', 'step'],
    ['cosineMean', 'mean cosine'],
    ['cosineMin', 'min cosine'],
    ['touched', 'layers / pairs changed'],
    ['skipped', 'skipped'],
    ['lossBefore', 'Σ layer loss before'],
    ['lossAfter', 'after'],
    ['iterations', 'iterations'],
    ['algorithmSeconds', 'step s (Node)'],
    ['gatherSeconds', 'of which model runs s'],
    ['passes', 'passes over the data'],
    ['totalSeconds', 'total s'],
  ],
  async run() {
    const rows = [];
    for (const model of MODELS)
      for (const variant of VARIANTS) rows.push(await runCase('cases/recover.ts', [model, variant, BENCH_ITERATIONS]));
    return rows;
  },
};
