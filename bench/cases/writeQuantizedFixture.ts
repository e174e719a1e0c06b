/** Writes a fixture's U8S8 per-channel quantization by the studio's core (tests/helpers/quantizedFixtures.ts) to the path given. */
import fs from 'node:fs';
import path from 'node:path';
import { encode } from '../../src/core/onnx/index.ts';
import { quantizedFixture } from '../../tests/helpers/quantizedFixtures.ts';

const [fixture, out] = process.argv.slice(2);
fs.mkdirSync(path.dirname(out), { recursive: true });
if (!fs.existsSync(out)) fs.writeFileSync(out, encode(quantizedFixture(fixture, { perChannel: true })));
console.log(JSON.stringify({ path: out, bytes: fs.statSync(out).size }));
