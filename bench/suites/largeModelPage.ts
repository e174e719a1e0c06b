/**
 * Suite "large-model-page": a model over 2 GiB in the studio itself, in Chromium (issue 19): open (the .onnx
 * and its data file picked together), calibrate XINT8 on 2 COCO photos, quantize, download .onnx + .onnx.data,
 * evaluate in the page; seconds and the browser's peak memory per step, and onnxruntime-node's cosine between
 * the downloaded model and the float one (bench/cases/largeModelBrowser.ts). One size: it needs about 10 GB of
 * a quiet machine. The CLI's steps and the runtime's heap against size are suite "large-model".
 */
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

const BYTES = 2.25e9;

export const largeModelPageSuite: Suite = {
  name: 'large-model-page',
  title: 'A model over 2 GiB in the page (Chromium): MLP of 4096-wide layers, XINT8 on 2 COCO photos',
  columns: [
    ['weightsGB', 'weights GB'],
    ['openS', 'open s'],
    ['calibrateS', 'calibrate s'],
    ['quantizeS', 'quantize s'],
    ['downloadS', 'download s'],
    ['evaluateS', 'evaluate s'],
    ['peakOpenMB', 'peak PSS open MB'],
    ['peakCalibrateMB', 'calibrate MB'],
    ['peakQuantizeMB', 'quantize MB'],
    ['peakEvaluateMB', 'evaluate MB'],
    ['pageCosine', 'page cosine'],
    ['judgeCosineFixed', 'onnxruntime-node cosine (fixed input)'],
    ['judgeCosineRandom', '(random input)'],
  ],
  async run() {
    const rows: Row[] = [];
    await withPreviewServer(
      { port: PREVIEW_PORTS['large-model-page'], outDir: 'dist-bench-large-page' },
      async (url) => {
        rows.push(await runCase('cases/largeModelBrowser.ts', [url, String(BYTES), '2']));
      },
    );
    return rows;
  },
};
