/**
 * Suite "graph": the graph view in Chromium, for the fixtures and for synthetic exporter-like graphs of
 * 1,000, 5,000 and 20,000 nodes: the time from dropping the model to a fully drawn graph (and its
 * phases), and the frame time of a pan and a zoom, with the whole graph in view and zoomed in on a
 * node. Goals: under 1 s of graph work for the fixtures and 1,000 nodes, under 5 s for 20,000, and
 * pan/zoom under 33 ms a frame at 5,000 nodes. Beside it, the anchor: the first model given to a fresh page, to its
 * graph on screen, in the studio and in Netron 9.2.1 (../shared/anchors, unpacked into bench/tmp/netron), by the
 * same harness (cases/firstDrawBrowser.ts), and their ratio (goal: Netron's time ≥ 3 × the studio's).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer, withStaticServer } from '../previewServer.ts';

const root = path.resolve(import.meta.dirname, '../..');
const FIXTURES = ['mnist.onnx', 'super-resolution-10.onnx', 'yunet-n-dynamic.onnx', 'ultraface-rfb-320.onnx', 'yolox-nano.onnx'];
const SYNTHETIC = [1000, 5000, 20000];

export const graphSuite: Suite = {
  name: 'graph',
  title: 'Graph view in Chromium: drop to drawn graph, pan and zoom frame times',
  columns: [
    ['model', 'model'],
    ['boxes', 'boxes'],
    ['dropToDrawnSeconds', 'drop → drawn s'],
    ['summarySeconds', 'drop → model summary s'],
    ['openSeconds', 'model open s'],
    ['graphSeconds', 'graph work s'],
    ['viewModelSeconds', 'index + view model s (main)'],
    ['layoutSeconds', 'layout s (worker)'],
    ['firstPictureSeconds', 'first picture s'],
    ['firstDrawSeconds', 'first model → drawn s (studio, fresh page)'],
    ['netronSeconds', 'same, Netron 9.2.1 s'],
    ['netronRatio', 'Netron / studio'],
    ['fitPanMs', 'pan ms/frame (fit)'],
    ['fitZoomMs', 'zoom ms/frame (fit)'],
    ['zoomedPanMs', 'pan ms/frame (zoomed in)'],
    ['zoomedZoomMs', 'zoom ms/frame (zoomed in)'],
    ['detailedBoxes', 'boxes in cytoscape (zoomed in)'],
  ],
  async run() {
    const rows: Row[] = [];
    const models = [
      ...FIXTURES.map((f) => ({ file: path.join(root, '../shared/fixtures/models', f), label: f })),
      ...SYNTHETIC.map((n) => ({ file: path.join(root, `bench/tmp/graph/synthetic-${n}.onnx`), label: `synthetic ${n.toLocaleString('en')} nodes` })),
    ];
    for (const n of SYNTHETIC) await runCase('cases/writeSyntheticGraph.ts', [path.join(root, `bench/tmp/graph/synthetic-${n}.onnx`), String(n)]);
    const netron = path.join(root, 'bench/tmp/netron');
    if (!fs.existsSync(path.join(netron, 'source/index.html'))) {
      fs.mkdirSync(netron, { recursive: true });
      execFileSync('tar', ['xzf', path.join(root, '../shared/anchors/netron-9.2.1-source.tgz'), '-C', netron]);
    }
    await withPreviewServer({ port: PREVIEW_PORTS['graph'], outDir: 'dist-bench-graph' }, (url) =>
      withStaticServer(path.join(netron, 'source'), PREVIEW_PORTS['graph-anchor'], async (anchorUrl) => {
        for (const m of models) {
          const row = await runCase('cases/graphBrowser.ts', [url, m.file, m.label]);
          // Side by side: the two first-draw cases right after each other, so they share the machine's load.
          const studio = await runCase('cases/firstDrawBrowser.ts', ['studio', url, m.file, m.label]);
          const anchor = await runCase('cases/firstDrawBrowser.ts', ['netron', anchorUrl, m.file, m.label]);
          rows.push({ ...row, firstDrawSeconds: studio.seconds, netronSeconds: anchor.seconds, netronRatio: +(Number(anchor.seconds) / Number(studio.seconds)).toFixed(2) });
        }
      }),
    );
    return rows;
  },
};
