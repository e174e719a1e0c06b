/**
 * Models whose outputs include integer or bool tensors (an ArgMax's int64 labels, a bool mask), as many
 * classifiers and detectors export them. Such outputs have no cosine: the comparison measures the float
 * outputs and names the others as skipped. Before, `qstudio evaluate` stopped with "only float32 outputs
 * are compared" and the mixed-precision search crashed with an uncaught TypeError (BigInt mixed with
 * numbers). A model built in code, run for real in onnxruntime-node.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DataType,
  encode,
  intAttribute,
  intsAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  type ModelProto,
} from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { compareModels, ComparisonError } from '../src/core/evaluate/index.ts';
import { chooseMixedPrecision } from '../src/core/search/mixedPrecision.ts';
import { DEFAULT_PRECISION_BUDGET } from '../src/core/quantize/precisionBudget.ts';
import { nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { feedsFor } from './helpers/smallModels.ts';
import { IMAGES } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

/** image [1,3,8,8] → Conv → Relu → GlobalAveragePool → Flatten → scores (float); ArgMax → label (int64); scores > 0 → positive (bool). */
function labelledModel(withFloatOutput = true): ModelProto {
  const w = Float32Array.from({ length: 4 * 3 * 9 }, (_, i) => Math.sin(i * 1.7) * 0.5);
  const graph = makeGraph({
    name: 'labelled',
    node: [
      makeNode('Conv', ['image', 'w'], ['c'], 'conv', [intsAttribute('kernel_shape', [3, 3])]),
      makeNode('Relu', ['c'], ['r'], 'relu'),
      makeNode('GlobalAveragePool', ['r'], ['g'], 'gap'),
      makeNode('Flatten', ['g'], ['scores'], 'flatten'),
      makeNode('ArgMax', ['scores'], ['label'], 'argmax', [intAttribute('axis', 1), intAttribute('keepdims', 0)]),
      makeNode('Greater', ['scores', 'zero'], ['positive'], 'greater'),
    ],
    input: [makeValueInfo('image', DataType.FLOAT, [1, 3, 8, 8])],
    output: [
      ...(withFloatOutput ? [makeValueInfo('scores', DataType.FLOAT, [1, 4])] : []),
      makeValueInfo('label', DataType.INT64, [1]),
      makeValueInfo('positive', DataType.BOOL, [1, 4]),
    ],
    initializer: [
      makeTensor('w', DataType.FLOAT, [4, 3, 3, 3], w),
      makeTensor('zero', DataType.FLOAT, [], Float32Array.of(0)),
    ],
  });
  return makeModel(graph, { '': 13 }, 7);
}

const ranges = new Map(['image', 'c', 'r', 'g', 'scores'].map((t) => [t, { min: -2, max: 2 }]));
const feeds = [1, 2, 3].map((seed) => feedsFor(labelledModel(), seed, 0, 1));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-int-outputs-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('models with integer and bool outputs', () => {
  it('compareModels measures the float outputs and names the integer and bool ones as skipped', async () => {
    const float = labelledModel();
    const quant = quantizeModel(float, ranges, getPreset('A8W8'), 'A8W8').model;
    const c = await compareModels(float, quant, nodeRuntime(feeds));
    expect(c.outputNames).toEqual(['scores']);
    expect(c.skippedOutputs).toEqual([
      { name: 'label', type: 'int64' },
      { name: 'positive', type: 'bool' },
    ]);
    expect(c.outputs.map((o) => o.output)).toEqual(['scores']);
    expect(c.outputs[0].metrics.cosine!.mean).toBeGreaterThan(0.9);
  });

  it('the mixed-precision search runs on such a model (it threw a TypeError)', async () => {
    const result = await chooseMixedPrecision(labelledModel(), ranges, getPreset('A8W8'), nodeRuntime(feeds), {
      budget: DEFAULT_PRECISION_BUDGET,
      target: 0.99,
      samples: 2,
    });
    expect(result.config).toBeDefined();
    expect(result.steps.length).toBeGreaterThan(0);
  });

  it('a model with no float output cannot be compared: ComparisonError names its outputs', async () => {
    const float = labelledModel(false);
    const quant = quantizeModel(float, ranges, getPreset('A8W8'), 'A8W8').model;
    const failure = await compareModels(float, quant, nodeRuntime(feeds)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ComparisonError);
    expect((failure as Error).message).toMatch(/no float output to compare \("label" is int64, "positive" is bool\)/);
  });

  it('qstudio evaluate compares such a model and says which outputs it left out', () => {
    const floatPath = path.join(tmp, 'labelled.onnx');
    const quantPath = path.join(tmp, 'labelled.a8w8.onnx');
    const data = path.join(tmp, 'data');
    fs.mkdirSync(data);
    fs.copyFileSync(path.join(IMAGES, 'photos', 'astronaut.png'), path.join(data, 'astronaut.png'));
    fs.writeFileSync(floatPath, encode(labelledModel()));
    fs.writeFileSync(quantPath, encode(quantizeModel(labelledModel(), ranges, getPreset('A8W8'), 'A8W8').model));
    const r = qstudio('evaluate', floatPath, quantPath, '--data', data, '--preprocess', 'unit');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Mean cos similarity: 0\.9/);
    expect(r.stderr).toContain('not compared: label (int64), positive (bool)');
  });
});
