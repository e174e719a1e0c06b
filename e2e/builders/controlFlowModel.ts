/**
 * Writes the control-flow model the tests use (core/quantize/testModels.ts controlFlowModel: a Gemm, an If whose
 * then branch holds a Gemm and a nested If, a Loop whose body holds MatMul → Add → Tanh) for the subgraph spec:
 * `node --import tsx e2e/builders/controlFlowModel.ts OUT.onnx`. Its own process because Playwright's loader does not
 * take the core's schema.
 */
import fs from 'node:fs';
import { encode } from '../../src/core/onnx/index.ts';
import { controlFlowModel } from '../../src/core/quantize/testModels.ts';

const [out] = process.argv.slice(2);
if (!out) throw new Error('usage: controlFlowModel.ts OUT.onnx');
fs.writeFileSync(out, encode(controlFlowModel()));
