/**
 * The opset tables are data transcribed by hand from ONNX's changelog; these tests keep them honest:
 * versions up to 17 match the schemas of the installed onnx package, and every op with rules has a rule
 * for every boundary up to the highest supported target.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { OP_HISTORY, OP_REMOVED_AT } from './opsetHistory.ts';
import { MAX_TARGET_OPSET, OPSET_STEPS } from './opsetSteps.ts';
import { minIrVersionForOpset } from './irVersion.ts';

/** since_versions of every default-domain schema known to /usr/bin/python3's onnx (1.12: opsets ≤ 17). */
function onnxDefsHistory(): Record<string, number[]> {
  const script = [
    'import json, onnx.defs as d',
    'h = {}',
    'for s in d.get_all_schemas_with_history():',
    "    if s.domain == '': h.setdefault(s.name, []).append(s.since_version)",
    'print(json.dumps({k: sorted(set(v)) for k, v in h.items()}))',
  ].join('\n');
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' }));
}

describe('OP_HISTORY', () => {
  it('matches the schemas of onnx 1.12 for every version up to 17', () => {
    const defs = onnxDefsHistory();
    for (const [op, versions] of Object.entries(defs)) {
      expect(
        OP_HISTORY[op]?.filter((v) => v <= 17),
        op,
      ).toEqual(versions);
    }
    for (const [op, versions] of Object.entries(OP_HISTORY)) {
      if (versions[0] <= 17) expect(defs[op], op).toBeDefined();
    }
  });

  it('lists versions in ascending order, and removed ops at the version they were removed', () => {
    for (const [op, versions] of Object.entries(OP_HISTORY)) {
      expect(
        [...versions].sort((a, b) => a - b),
        op,
      ).toEqual(versions);
    }
    for (const [op, at] of Object.entries(OP_REMOVED_AT)) expect(OP_HISTORY[op]).toContain(at);
  });
});

describe('OPSET_STEPS', () => {
  it('has a rule for every boundary of each op it covers, up to the highest target', () => {
    for (const [op, steps] of Object.entries(OPSET_STEPS)) {
      const history = OP_HISTORY[op];
      expect(history, op).toBeDefined();
      const boundaries = history.slice(1).filter((v) => v <= MAX_TARGET_OPSET);
      expect(
        Object.keys(steps)
          .map(Number)
          .sort((a, b) => a - b),
        op,
      ).toEqual(boundaries);
    }
  });

  it('covers every op named in the preparation brief', () => {
    const wanted = [
      'Slice',
      'Softmax',
      'LogSoftmax',
      'Hardmax',
      'Clip',
      'Pad',
      'Squeeze',
      'Unsqueeze',
      'ReduceSum',
      'ReduceMean',
      'ReduceMax',
      'Split',
      'Dropout',
      'TopK',
      'Upsample',
      'Resize',
      'BatchNormalization',
      'MaxPool',
      'AveragePool',
      'Scatter',
      'Gemm',
      'Reshape',
      'Gather',
      'Concat',
      'Conv',
      'ConvTranspose',
      'Relu',
      'LeakyRelu',
      'Sigmoid',
      'HardSigmoid',
      'Mul',
      'Add',
      'Sub',
      'Div',
      'Exp',
      'Transpose',
      'Flatten',
      'Shape',
      'Cast',
      'Identity',
      'Constant',
      'ConstantOfShape',
      'Where',
      'Equal',
      'Less',
      'Greater',
      'Max',
      'Min',
      'Sum',
      'MatMul',
      'PRelu',
      'Expand',
      'Tile',
      'Sqrt',
      'Pow',
      'Floor',
      'Ceil',
      'Tanh',
      'NonMaxSuppression',
      'ArgMax',
      'ArgMin',
      'And',
      'Or',
      'InstanceNormalization',
      'Erf',
      'Abs',
      'Neg',
      'Log',
      'Reciprocal',
      'If',
      'Loop',
    ];
    for (const op of wanted) expect(OPSET_STEPS[op], op).toBeDefined();
    // Ops that never changed up to 21 need no rule at all.
    for (const op of ['GlobalAveragePool', 'Softplus', 'Range', 'Einsum', 'Not', 'LayerNormalization']) {
      expect(
        OP_HISTORY[op].filter((v) => v > OP_HISTORY[op][0] && v <= MAX_TARGET_OPSET),
        op,
      ).toEqual([]);
    }
  });
});

describe('minIrVersionForOpset', () => {
  it('follows the release table of docs/Versioning.md', () => {
    expect([8, 9, 10, 11, 12, 13, 14, 15, 18, 19, 20, 21, 22].map(minIrVersionForOpset)).toEqual([
      3, 4, 5, 6, 7, 7, 7, 8, 8, 9, 9, 10, 10,
    ]);
  });
});
