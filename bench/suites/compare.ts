/**
 * Suite "compare": the split view in Chromium for YOLOX-nano and for the synthetic 20,000-node graph, each beside its
 * U8S8 quantization by the studio's core (Q/DQ folded: as many boxes as the float graph), and the 20,000-node graph
 * beside its re-export (the same float graph, every name changed: two 20,000-node graphs matched by structure; its
 * "quantized" columns are the re-export's). One pane (drop → drawn) for
 * each model alone, then both dropped on the comparison target (drop → both panes drawn), and the frame time of a pan
 * that the other pane follows, and the longest main-thread task while the split view opens. Beside them, Netron
 * 9.2.1 (../shared/anchors) given the float file through its file input, to its first picture (cases/firstDrawBrowser.ts,
 * the graph-first-draw suite's harness). Goal: the split view opens within 2× the time of one pane.
 * QS_BENCH_PORT serves both apps on another port (one after the other), QS_BENCH_NETRON=0 leaves Netron out.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer, withStaticServer } from '../previewServer.ts';

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
    ['splitOverFloatPane', 'split / float pane'],
    ['netronSeconds', 'Netron 9.2.1, float file: first picture s'],
    ['workerReadSeconds', 'worker: read both s'],
    ['workerViewsSeconds', 'worker: both panes (fold + layout) s'],
    ['workerMapSeconds', 'worker: mapping s'],
    ['dropToReceivedSeconds', 'drop → result on the page s'],
    ['drawSeconds', 'two first pictures s'],
    ['longestTaskMs', 'longest main-thread task while the split opens ms'],
    ['onePaneQuantizedLongestTaskMs', 'longest main-thread task, quantized pane alone ms'],
    ['related', 'related'],
    ['onePanMs', 'pan ms/frame, one pane'],
    ['splitPanMs', 'pan ms/frame, split (other follows)'],
    ['splitPanP95Ms', 'p95'],
  ],
  async run() {
    const tmp = path.join(root, 'bench/tmp/compare');
    const cases = [
      { n: 0, label: 'YOLOX-nano (U8S8 per channel, by the core)' },
      { n: 20000, label: 'synthetic 20,000 nodes (U8S8)' },
      { n: 20000, renamed: true, label: 'synthetic 20,000 nodes beside its re-export (float; every name changed)' },
    ];
    // `quant` is the second pane's file: the quantization, or for the re-export row the renamed float graph.
    const files: { float: string; quant: string; label: string }[] = [];
    for (const c of cases) {
      const float = c.n
        ? path.join(tmp, `synthetic-${c.n}.onnx`)
        : path.join(root, '../shared/fixtures/models/yolox-nano.onnx');
      const quant = c.renamed
        ? path.join(tmp, `synthetic-${c.n}.renamed.onnx`)
        : c.n
          ? path.join(tmp, `synthetic-${c.n}.quant.onnx`)
          : path.join(tmp, 'yolox-nano.quant.onnx');
      if (c.renamed) await runCase('cases/writeRenamedSynthetic.ts', [quant, String(c.n)]);
      else if (c.n) await runCase('cases/writeQuantizedSynthetic.ts', [float, quant, String(c.n)]);
      else await runCase('cases/writeQuantizedFixture.ts', ['yolox-nano.onnx', quant]);
      files.push({ float, quant, label: c.label });
    }
    const port = Number(process.env.QS_BENCH_PORT ?? PREVIEW_PORTS['compare']);
    const rows: Row[] = [];
    await withPreviewServer({ port, outDir: 'dist-bench-compare' }, async (url) => {
      for (const f of files) rows.push(await runCase('cases/compareBrowser.ts', [url, f.float, f.quant, f.label]));
    });
    if (process.env.QS_BENCH_NETRON !== '0') {
      const netron = path.join(root, 'bench/tmp/netron');
      if (!fs.existsSync(path.join(netron, 'source/index.html'))) {
        fs.mkdirSync(netron, { recursive: true });
        execFileSync('tar', ['xzf', path.join(root, '../shared/anchors/netron-9.2.1-source.tgz'), '-C', netron]);
      }
      // On the studio's port once its server has let it go: the two apps never run at once.
      for (let tries = 0; ; tries++) {
        try {
          await withStaticServer(path.join(netron, 'source'), port, async (anchorUrl) => {
            for (const [k, f] of files.entries())
              rows[k].netronSeconds = (
                await runCase('cases/firstDrawBrowser.ts', ['netron', anchorUrl, f.float, f.label, '1'])
              ).seconds;
          });
          break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries >= 40) throw e;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    }
    return rows;
  },
};
