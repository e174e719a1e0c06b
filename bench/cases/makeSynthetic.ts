/** Writes the synthetic 100 MB benchmark model to the path given (bench/tmp/, ignored by git); prints its size. */
import fs from 'node:fs';
import path from 'node:path';
import { encodeParts } from '../../src/core/onnx/index.ts';
import { SYNTHETIC_100MB, syntheticMlp } from '../synthetic.ts';

const out = process.argv[2];
fs.mkdirSync(path.dirname(out), { recursive: true });
if (!fs.existsSync(out)) {
  const parts = encodeParts(syntheticMlp(SYNTHETIC_100MB.layers, SYNTHETIC_100MB.width));
  fs.writeFileSync(out, Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))));
}
console.log(JSON.stringify({ path: out, bytes: fs.statSync(out).size }));
