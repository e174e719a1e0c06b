/**
 * Suite "graph-first-draw" (issue 16): the first model given to a fresh page, to its graph on screen, in the studio
 * and in the anchor, Netron 9.2.1 (../shared/anchors, unpacked into bench/tmp/netron), by the same harness
 * (cases/firstDrawBrowser.ts, where "drawn" is defined alike for both: the boxes on screen). The two apps alternate,
 * one fresh page each per repeat, so they share the machine's load; the load average is recorded beside each model.
 * Models: the smallest fixture (MNIST), YOLOX-nano, and exporter-like synthetic graphs of 1,000, 5,000 and 20,000
 * nodes. Goal: Netron's time ≥ 3 × the studio's at every size. Repeats: QS_BENCH_REPEATS (default 5).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { previousRows, runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer, withStaticServer } from '../previewServer.ts';

const root = path.resolve(import.meta.dirname, '../..');
const SYNTHETIC = [1000, 5000, 20000];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export const graphFirstDrawSuite: Suite = {
  name: 'graph-first-draw',
  title:
    'First model on a fresh page to its graph on screen: the studio beside Netron 9.2.1 (same harness, alternating)',
  columns: [
    ['model', 'model'],
    ['studioSeconds', 'studio s (median)'],
    ['studioRuns', 'studio runs s'],
    ['netronSeconds', 'Netron 9.2.1 s (median)'],
    ['netronRuns', 'Netron runs s'],
    ['netronRatio', 'Netron / studio'],
    ['opened', 'studio: model opened s'],
    ['laidOut', 'studio: layout done s'],
    ['load', 'load average (1 min) during the model'],
    ['measured', 'measured'],
  ],
  async run() {
    const repeats = Number(process.env.QS_BENCH_REPEATS ?? 5);
    // QS_BENCH_MODELS=mnist,yolox re-measures only the models whose label contains one of the words.
    const only = process.env.QS_BENCH_MODELS?.split(',').filter(Boolean);
    const chosen = (label: string) => !only || only.some((word) => label.includes(word));
    const synthetic = SYNTHETIC.filter((n) => chosen(`synthetic ${n.toLocaleString('en')} nodes`));
    const models = [
      { file: path.join(root, '../shared/fixtures/models/mnist.onnx'), label: 'mnist.onnx' },
      { file: path.join(root, '../shared/fixtures/models/yolox-nano.onnx'), label: 'yolox-nano.onnx' },
      ...synthetic.map((n) => ({
        file: path.join(root, `bench/tmp/graph/synthetic-${n}.onnx`),
        label: `synthetic ${n.toLocaleString('en')} nodes`,
      })),
    ].filter((m) => chosen(m.label));
    for (const n of synthetic)
      await runCase('cases/writeSyntheticGraph.ts', [
        path.join(root, `bench/tmp/graph/synthetic-${n}.onnx`),
        String(n),
      ]);
    const netron = path.join(root, 'bench/tmp/netron');
    if (!fs.existsSync(path.join(netron, 'source/index.html'))) {
      fs.mkdirSync(netron, { recursive: true });
      execFileSync('tar', ['xzf', path.join(root, '../shared/anchors/netron-9.2.1-source.tgz'), '-C', netron]);
    }
    const rows: Row[] = [];
    await withPreviewServer({ port: PREVIEW_PORTS['graph-first-draw'], outDir: 'dist-bench-graph-first-draw' }, (url) =>
      withStaticServer(path.join(netron, 'source'), PREVIEW_PORTS['graph-anchor'], async (anchorUrl) => {
        for (const m of models) {
          const studio: Row[] = [],
            anchor: Row[] = [],
            loads: number[] = [];
          for (let r = 0; r < repeats; r++) {
            loads.push(os.loadavg()[0]);
            studio.push(await runCase('cases/firstDrawBrowser.ts', ['studio', url, m.file, m.label, '1']));
            loads.push(os.loadavg()[0]);
            anchor.push(await runCase('cases/firstDrawBrowser.ts', ['netron', anchorUrl, m.file, m.label, '1']));
          }
          const s = studio.map((row) => Number(row.seconds)),
            a = anchor.map((row) => Number(row.seconds));
          const mid = studio.find((row) => Number(row.seconds) === median(s))!;
          const marks = mid.marks as unknown as Record<string, number>;
          rows.push({
            model: m.label,
            studioSeconds: median(s),
            studioRuns: s.join(', '),
            netronSeconds: median(a),
            netronRuns: a.join(', '),
            netronRatio: +(median(a) / median(s)).toFixed(2),
            opened: marks['model:opened'] ?? null,
            laidOut: marks['graph:layout'] ?? null,
            load: `${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}`,
            measured: new Date().toISOString().slice(0, 10),
          });
          console.log(JSON.stringify(rows.at(-1)));
        }
      }),
    );
    // Rows not re-measured this run are carried over as they stand, with the date they were measured.
    return only ? previousRows('graph-first-draw').map((r) => rows.find((f) => f.model === r.model) ?? r) : rows;
  },
};
