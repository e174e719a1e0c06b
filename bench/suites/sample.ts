/**
 * Suite "sample": the README's promise, "sample model: one click", measured: the time from the click on
 * "Quantize the sample" to the report in Chromium (calibrate on 12 drawn text scenes, quantize with the sample's settings: A8W8 per channel, Sequential ranges, evaluate
 * on 6 held-out scenes, per-layer comparison included), the page's mean output cosine, and onnxruntime-node's
 * cosine for the downloaded model on the same held-out scenes (the independent judge). The machine's load
 * average when it started is recorded beside the time: the time is only comparable at similar load.
 */
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

export const sampleSuite: Suite = {
  name: 'sample',
  title:
    "The sample (PP-OCRv4 det) in one click: 12 drawn text scenes calibrate, 6 held-out scenes judge, 320×320, the sample's settings (A8W8 per channel, Sequential; XINT8 before 2026-11-29)",
  columns: [
    ['clickToReportSeconds', 'click to report s'],
    ['pageCosineHeldOut', 'mean output cosine, held-out (page)'],
    ['nodeCosineHeldOut', 'mean output cosine, held-out (onnxruntime-node)'],
    ['heldOutImages', 'held-out scenes'],
    ['loadAverage', 'load average at start'],
    ['error', 'error'],
  ],
  async run() {
    const rows: Row[] = [];
    await withPreviewServer({ port: PREVIEW_PORTS.sample, outDir: 'dist-bench-sample' }, async (url) => {
      try {
        rows.push(await runCase('cases/sampleBrowser.ts', [url, String(PREVIEW_PORTS.sample + 1)]));
      } catch (e) {
        rows.push({
          clickToReportSeconds: null,
          error: String((e as Error).message)
            .split('\n')[0]
            .slice(0, 200),
        });
      }
    });
    return rows;
  },
};
