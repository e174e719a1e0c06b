/**
 * The comparison worker's steps timed in Node on two files (the split view's work before it draws): decoding each
 * file read-only, its graph index, its pane (the view with the Q/DQ fold, then the layout) and the mapping, each in
 * CPU seconds (process.cpuUsage, user + sys) and wall seconds, repeated `runs` times; prints medians as one JSON row.
 * Usage: compareWorkerSteps.ts <a.onnx> <b.onnx> [runs]
 */
import fs from 'node:fs';
import { decode } from '../../src/core/onnx/decode.ts';
import { buildGraphIndex } from '../../src/core/onnx/graphIndex.ts';
import { buildGraphView, layoutInputOf } from '../../src/core/graph/graphView.ts';
import { layeredLayout } from '../../src/core/graph/layeredLayout.ts';
import { compareViews } from '../../src/core/graph/comparison.ts';

const [fileA, fileB, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const bytes = [fileA, fileB].map((f) => new Uint8Array(fs.readFileSync(f)));
const samples: Record<string, number[]> = {};
const timed = <T>(step: string, f: () => T): T => {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const out = f();
  const used = process.cpuUsage(cpu);
  (samples[`${step}Cpu`] ??= []).push((used.user + used.system) / 1e6);
  (samples[`${step}Wall`] ??= []).push((performance.now() - t) / 1000);
  return out;
};
for (let r = 0; r < runs; r++) {
  (globalThis as { gc?: () => void }).gc?.();
  const total = timed('total', () => {
    const views = ['a', 'b'].map((side, k) => {
      const graph = timed(`decode_${side}`, () => decode(bytes[k], { fileName: side, readOnly: true }).graph!);
      const index = timed(`index_${side}`, () => buildGraphIndex(graph));
      const view = timed(`view_${side}`, () => buildGraphView(index));
      timed(`layout_${side}`, () => layeredLayout(layoutInputOf(view)));
      return view;
    });
    return timed('map', () => compareViews(views[0], views[1], { a: 'a', b: 'b' }));
  });
  if (r === 0) (samples.common ??= []).push(total.mapping.common);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(
  JSON.stringify(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Number(median(v).toFixed(3))]))),
);
