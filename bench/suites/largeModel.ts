/**
 * Suite "large-model": models with external data against their size (issue 19). Per size, one process
 * does what `qstudio quantize --calib` does (open, calibrate on 4 COCO photos, quantize XINT8, write .onnx +
 * .data) and reports each step's seconds and the peak RSS after it; another opens the page's runtime
 * (onnxruntime-web WASM, in Node) on the same model and reports the WebAssembly heap the session took,
 * which is what the page's size limit (src/ui/store/modelSources.ts) is set from.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';

const COCO = path.resolve(import.meta.dirname, '../../../shared/fixtures/images/coco');
const SIZES = [0.5e9, 1e9, 2.2e9, 2.6e9];

export const largeModelSuite: Suite = {
  name: 'large-model',
  title:
    "Models with external data: CLI steps and the page runtime's WASM heap, against size (MLP of 4096-wide layers)",
  columns: [
    ['weightsGB', 'weights GB'],
    ['openS', 'open s'],
    ['calibrateS', 'calibrate s (4 images)'],
    ['quantizeS', 'quantize s'],
    ['writeS', 'write s'],
    ['peakOpenMB', 'peak RSS after open MB'],
    ['peakCalibrateMB', 'after calibrate MB'],
    ['peakWriteMB', 'after quantize + write MB'],
    ['heapSessionMiB', 'page: WASM heap of the session MiB'],
    ['pageOpens', 'page: session opens'],
  ],
  async run() {
    const images = fs
      .readdirSync(COCO)
      .sort()
      .slice(0, 4)
      .map((f) => path.join(COCO, f));
    const rows: Row[] = [];
    for (const bytes of SIZES) {
      const wasm = await runCase('cases/largeModelWasm.ts', [String(bytes)]);
      const cli =
        bytes <= 2.2e9
          ? await runCase('cases/largeModel.ts', [String(bytes), ...images])
          : { weightsGB: +(bytes / 1e9).toFixed(2) };
      rows.push({
        ...cli,
        heapSessionMiB: wasm.heapSessionMiB,
        pageOpens: wasm.ok ? 'yes' : `no: ${String(wasm.error).slice(0, 60)}`,
      });
    }
    return rows;
  },
};
