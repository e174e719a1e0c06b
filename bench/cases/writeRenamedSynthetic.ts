/**
 * Writes the synthetic scoped graph of N nodes as another exporter would name it (the split view's benchmark of two
 * 20,000-node graphs): the same float graph with every node, weight and inner tensor renamed ("/model.3/m.1/cv1/conv/
 * Conv" → "model_3__m_1__cv1__conv__Conv_r"), the graph's inputs and outputs kept. The node mapping must then match
 * by structure, not by name. Prints the size and how many names changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeParts } from '../../src/core/onnx/index.ts';
import { syntheticScopedGraph } from '../syntheticGraph.ts';

const [out, nodes] = process.argv.slice(2);
const model = syntheticScopedGraph(Number(nodes));
const graph = model.graph!;
const kept = new Set([...graph.input, ...graph.output].map((v) => v.name!));
const renamed = (name: string) =>
  kept.has(name) || !name ? name : `${name.replace(/^\//, '').replace(/[/.]/g, (c) => (c === '/' ? '__' : '_'))}_r`;
let changed = 0;
for (const n of graph.node) {
  n.name = renamed(n.name!);
  n.input = n.input.map(renamed);
  n.output = n.output.map(renamed);
  changed++;
}
for (const t of graph.initializer) t.name = renamed(t.name!);
for (const v of graph.value_info ?? []) v.name = renamed(v.name!);
fs.mkdirSync(path.dirname(out), { recursive: true });
if (!fs.existsSync(out))
  fs.writeFileSync(
    out,
    Buffer.concat(encodeParts(model).map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))),
  );
console.log(JSON.stringify({ path: out, bytes: fs.statSync(out).size, nodesRenamed: changed }));
