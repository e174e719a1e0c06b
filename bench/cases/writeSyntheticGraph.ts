/** Writes the synthetic scoped graph of N nodes to the path given (bench/tmp/, ignored by git); prints its size. */
import fs from 'node:fs';
import path from 'node:path';
import { encodeParts } from '../../src/core/onnx/index.ts';
import { syntheticScopedGraph } from '../syntheticGraph.ts';

const [out, nodes] = process.argv.slice(2);
fs.mkdirSync(path.dirname(out), { recursive: true });
if (!fs.existsSync(out))
  fs.writeFileSync(
    out,
    Buffer.concat(
      encodeParts(syntheticScopedGraph(Number(nodes))).map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)),
    ),
  );
console.log(JSON.stringify({ path: out, bytes: fs.statSync(out).size }));
