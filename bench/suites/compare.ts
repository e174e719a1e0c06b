/**
 * Suite "compare": the split view in Chromium for YOLOX-nano and for the synthetic 20,000-node graph, each beside its
 * U8S8 quantization by the studio's core (Q/DQ folded: as many boxes as the float graph). One pane (drop → drawn) for
 * each model alone, then both dropped on the comparison target (drop → both panes drawn), and the frame time of a pan
 * that the other pane follows. Goal: the split view opens within 2× the time of one pane.
 */
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

const root = path.resolve(import.meta.dirname, '../..');

export const compareSuite: Suite = {
  name: 'compare',
  title: 'Split view in Chromium: float beside quantized, against one pane',
  columns: [
    ['model', 'model'],
    ['boxes', 'boxes a pane'],
    ['onePaneFloatSeconds', 'one pane, float: drop → drawn s'],
    ['onePaneQuantizedSeconds', 'one pane, quantized: drop → drawn s'],
    ['splitSeconds', 'split view: drop → both drawn s'],
    ['splitOverOnePane', 'split / slower pane'],
    ['readAndMapSeconds', 'read both + map s'],
    ['layoutSeconds', 'two layouts s'],
    ['drawSeconds', 'two first pictures s'],
    ['related', 'related'],
    ['onePanMs', 'pan ms/frame, one pane'],
    ['splitPanMs', 'pan ms/frame, split (other follows)'],
    ['splitPanP95Ms', 'p95'],
  ],
  async run() {
    const tmp = path.join(root, 'bench/tmp/compare');
    const cases = [{ n: 0, label: 'YOLOX-nano (U8S8 per channel, by the core)' }, { n: 20000, label: 'synthetic 20,000 nodes (U8S8)' }];
    const files: { float: string; quant: string; label: string }[] = [];
    for (const c of cases) {
      const float = c.n ? path.join(tmp, `synthetic-${c.n}.onnx`) : path.join(root, '../shared/fixtures/models/yolox-nano.onnx');
      const quant = c.n ? path.join(tmp, `synthetic-${c.n}.quant.onnx`) : path.join(tmp, 'yolox-nano.quant.onnx');
      if (c.n) await runCase('cases/writeQuantizedSynthetic.ts', [float, quant, String(c.n)]);
      else await runCase('cases/writeQuantizedFixture.ts', ['yolox-nano.onnx', quant]);
      files.push({ float, quant, label: c.label });
    }
    const rows: Row[] = [];
    await withPreviewServer({ port: PREVIEW_PORTS['compare'], outDir: 'dist-bench-compare' }, async (url) => {
      for (const f of files) rows.push(await runCase('cases/compareBrowser.ts', [url, f.float, f.quant, f.label]));
    });
    return rows;
  },
};
