/**
 * Reads, in a written model, how a node inside an If/Loop/Scan body is fed: `node --import tsx
 * e2e/builders/bodyNodeInputs.ts MODEL.onnx SCOPED_ID` prints JSON { op, inputs, fromDequantize } for the node the
 * scoped id names (`loop/body/body_matmul`, as nodes_to_exclude takes it), fromDequantize listing the inputs a
 * DequantizeLinear of any scope produces; { op: null } where the id names no body node. Its own process because
 * Playwright's loader does not take the core's schema.
 */
import fs from 'node:fs';
import { buildGraphIndex, decode, type GraphProto, type NodeId } from '../../src/core/onnx/index.ts';
import { bodyNodePath, scopeChain } from '../../src/ui/features/graph/subgraphScope.ts';

const [file, id] = process.argv.slice(2);
if (!file || !id) throw new Error('usage: bodyNodeInputs.ts MODEL.onnx SCOPED_ID');
const main = decode(fs.readFileSync(file)).graph!;
const dequantized = new Set<string>();
const visit = (g: GraphProto) => {
  for (const n of g.node) {
    if (n.op_type === 'DequantizeLinear') n.output.forEach((o) => dequantized.add(o));
    for (const a of n.attribute) for (const sub of a.g ? [a.g] : a.graphs) visit(sub);
  }
};
visit(main);
const found = bodyNodePath(main, id);
const chain = found && scopeChain(main, found.path);
const body = chain ? buildGraphIndex(chain[chain.length - 1]) : null;
const at = found && body ? body.indexOfId.get(found.nodeId as NodeId) : undefined;
const node = at === undefined ? null : body!.nodes[at];
process.stdout.write(
  JSON.stringify(
    node
      ? { op: node.op_type, inputs: node.input, fromDequantize: node.input.filter((t) => dequantized.has(t)) }
      : { op: null },
  ),
);
