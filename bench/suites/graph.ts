/**
 * Suite "graph": the graph view in Chromium, for the fixtures and for synthetic exporter-like graphs of
 * 1,000, 5,000 and 20,000 nodes: the time from dropping the model to a fully drawn graph (and its
 * phases), and the frame time of a pan and a zoom, with the whole graph in view and zoomed in on a
 * node. Goals: under 1 s of graph work for the fixtures and 1,000 nodes, under 5 s for 20,000, and
 * pan/zoom under 33 ms a frame at 5,000 nodes. The first model on a fresh page beside Netron is suite graph-first-draw.
 */
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

const root = path.resolve(import.meta.dirname, '../..');
const FIXTURES = [
  'mnist.onnx',
  'super-resolution-10.onnx',
  'yunet-n-dynamic.onnx',
  'ultraface-rfb-320.onnx',
  'yolox-nano.onnx',
];
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
      ...SYNTHETIC.map((n) => ({
        file: path.join(root, `bench/tmp/graph/synthetic-${n}.onnx`),
        label: `synthetic ${n.toLocaleString('en')} nodes`,
      })),
    ];
    for (const n of SYNTHETIC)
      await runCase('cases/writeSyntheticGraph.ts', [
        path.join(root, `bench/tmp/graph/synthetic-${n}.onnx`),
        String(n),
      ]);
    await withPreviewServer({ port: PREVIEW_PORTS['graph'], outDir: 'dist-bench-graph' }, async (url) => {
      for (const m of models) rows.push(await runCase('cases/graphBrowser.ts', [url, m.file, m.label]));
    });
    return rows;
  },
};
