/**
 * A digest of everything the comparison worker makes for two files (both panes with their Q/DQ fold, the graph
 * indexes' producers and consumers, the layouts, the mapping, marks and file values), as SHA-256 per part, so two
 * versions of the code can be checked to make the same split view. Usage: compareDigest.ts <a.onnx> <b.onnx>
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { decode } from '../../src/core/onnx/decode.ts';
import { buildGraphIndex, type GraphIndex } from '../../src/core/onnx/graphIndex.ts';
import { buildGraphView, layoutInputOf, type GraphView } from '../../src/core/graph/graphView.ts';
import { layeredLayout } from '../../src/core/graph/layeredLayout.ts';
import { compareViews } from '../../src/core/graph/comparison.ts';
import { mapNodes } from '../../src/core/graph/nodeMapping.ts';
import { qdqPrecisionLabels } from '../../src/core/graph/qdqFold.ts';

const plain = (v: unknown): unknown =>
  ArrayBuffer.isView(v)
    ? Array.from(v as unknown as ArrayLike<number>)
    : v instanceof Map
      ? [...v].map(([k, x]) => [k, plain(x)])
      : Array.isArray(v)
        ? v.map(plain)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
          : v;
const hash = (v: unknown) =>
  crypto
    .createHash('sha256')
    .update(JSON.stringify(plain(v)))
    .digest('hex')
    .slice(0, 16);
const indexParts = (i: GraphIndex) => ({
  producer: [...i.producer],
  consumers: [...i.consumers],
  nodeInputs: i.nodeInputs,
  order: i.order,
  succ: [i.succStart, i.succ, i.predStart, i.pred],
});
const [fa, fb] = process.argv.slice(2);
const views = [fa, fb].map((f) =>
  buildGraphView(buildGraphIndex(decode(new Uint8Array(fs.readFileSync(f)), { readOnly: true }).graph!)),
);
const viewParts = (v: GraphView) => ({
  ...v,
  index: undefined,
  qdq: v.qdq && { ...v.qdq, labels: qdqPrecisionLabels(v.index, v.qdq) },
});
const c = compareViews(views[0], views[1], { a: 'a', b: 'b' });
const m = mapNodes(views[0].index, views[1].index, { a: views[0].qdq, b: views[1].qdq });
console.log(
  JSON.stringify({
    indexA: hash(indexParts(views[0].index)),
    indexB: hash(indexParts(views[1].index)),
    viewA: hash(viewParts(views[0])),
    viewB: hash(viewParts(views[1])),
    foldB: hash(views[1].qdq),
    layoutA: hash(layeredLayout(layoutInputOf(views[0]))),
    layoutB: hash(layeredLayout(layoutInputOf(views[1]))),
    mapping: hash(m),
    comparison: hash(c),
    common: c.mapping.common,
  }),
);
