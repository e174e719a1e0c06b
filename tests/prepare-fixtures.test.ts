/**
 * The decisive test of src/core/prepare: on every fixture, `prepare` with target opset 13 and 21 gives a
 * model that onnxruntime-node loads and that computes what the original computes on the same seeded input:
 * bit-identical where nothing numeric changed, within 1e-5 of the output's scale where BatchNormalization
 * was folded (float rounding). onnx.checker must accept the opset-13 results (the installed onnx 1.12
 * knows opsets up to 17). The input model must come out untouched.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assignNodeIds, decode, encode, forEachGraph, opsetOf } from '../src/core/onnx/index.ts';
import { carryNodeIds, prepare } from '../src/core/prepare/index.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { FIXTURE_MODELS, readModel } from './helpers/fixtures.ts';
import { compareOutputs, runModel, seededFeeds } from './helpers/runModels.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-prepare-'));
const opset13Files: string[] = [];

describe.each([13, 21])('prepare(fixture, { targetOpset: %i })', (targetOpset) => {
  for (const name of FIXTURE_MODELS) {
    it(`${name}: loads and computes the original's outputs`, async () => {
      const bytes = readModel(name);
      const model = decode(bytes);
      const before = encode(model);
      const { model: prepared, origin, summary } = prepare(model, { targetOpset });

      expect(Buffer.compare(Buffer.from(encode(model)), Buffer.from(before))).toBe(0);
      expect(opsetOf(prepared, '')).toBe(targetOpset);
      forEachGraph(prepared.graph!, (g) => g.node.forEach((n) => expect(origin.source.has(n)).toBe(true)));

      const out = encode(prepared);
      const file = path.join(tmp, `${path.basename(name, '.onnx')}-${targetOpset}.onnx`);
      fs.writeFileSync(file, out);
      if (targetOpset <= 17) opset13Files.push(file);

      const feeds = seededFeeds(bytes);
      const diffs = compareOutputs(await runModel(bytes, feeds), await runModel(out, feeds));
      const folded = Object.values(summary.batchNormsFolded).reduce((a, b) => a + b, 0);
      for (const d of diffs) {
        if (folded > 0) expect(d.relative, `${d.name}: ${d.maxAbs}`).toBeLessThanOrEqual(1e-5);
        else expect(d.identical, `${d.name}: max |Δ| ${d.maxAbs}`).toBe(true);
      }
    });
  }
});

describe('without BatchNormalization folding', () => {
  // The baseline is the same preparation without the opset change: once initializers leave graph.input,
  // onnxruntime itself fuses Conv+BatchNormalization in float32, which already rounds differently from the
  // file as given. Against that baseline the opset change alone must be invisible.
  it.each([13, 21])(
    'ultraface-rfb-320 raised to %i computes bit-identical outputs (BatchNormalization carried 9 → 14 → 15)',
    async (targetOpset) => {
      const bytes = readModel('ultraface-rfb-320.onnx');
      const baseline = prepare(decode(bytes), { foldBatchNorm: false }).model;
      const { model, summary } = prepare(decode(bytes), { targetOpset, foldBatchNorm: false });
      expect(model.graph!.node.filter((n) => n.op_type === 'BatchNormalization').length).toBe(35);
      expect(summary.batchNormsFolded).toEqual({});
      const feeds = seededFeeds(bytes);
      for (const d of compareOutputs(await runModel(encode(baseline), feeds), await runModel(encode(model), feeds))) {
        expect(d.identical, `${d.name}: max |Δ| ${d.maxAbs}`).toBe(true);
      }
    },
  );
});

describe('node ids carried to the prepared fixtures', () => {
  it.each(FIXTURE_MODELS)('%s: every user node keeps its id or is recorded as absorbed; ids stay unique', (name) => {
    const model = decode(readModel(name));
    const nodes = model.graph!.node;
    const ids = assignNodeIds(nodes);
    const { model: prepared, origin } = prepare(model, { targetOpset: 13 });
    const carried = carryNodeIds(nodes, ids, prepared.graph!.node, origin);
    expect(new Set(carried).size).toBe(carried.length);
    const kept = new Set(carried);
    nodes.forEach((n, i) => expect(kept.has(ids[i]) || origin.absorbed.has(n), ids[i]).toBe(true));
  });
});

describe('onnx.checker on the opset-13 results', () => {
  it('accepts every prepared model', () => {
    expect(opset13Files.length).toBe(FIXTURE_MODELS.length);
    const verdicts = checkModels(opset13Files);
    for (const v of verdicts) expect(v.error ?? '', path.basename(v.path)).toBe('');
  });
});

describe('what prepare reports on the fixtures', () => {
  it('ultraface-rfb-320: 35 BatchNormalization folded, Slice-1 moved to inputs, Softmax kept on its last axis', () => {
    const { summary } = prepare(decode(readModel('ultraface-rfb-320.onnx')), { targetOpset: 13 });
    expect(summary.batchNormsFolded).toEqual({ Conv: 35 });
    expect(summary.opset).toEqual({ from: 9, to: 13 });
    expect(summary.irVersion).toEqual({ from: 4, to: 7 });
    const change = (op: string) => summary.opsetChanges.filter((c) => c.opType === op);
    expect(change('Slice')).toEqual([{ opType: 'Slice', action: 'starts/ends/axes attributes → inputs', count: 6 }]);
    expect(change('Softmax')).toEqual([{ opType: 'Softmax', action: 'kept (last axis)', count: 1 }]);
    expect(change('Unsqueeze')).toEqual([{ opType: 'Unsqueeze', action: 'axes attribute → input', count: 24 }]);
    expect(summary.actions[0]).toMatch(/^moved \d+ Constant nodes to initializers$/);
    expect(summary.actions).toContain('folded 35 BatchNormalization into Conv');
  });

  it('mnist (IR 3, opset 8): initializers leave the graph inputs and nothing else needs a rewrite', () => {
    const { model, summary } = prepare(decode(readModel('mnist.onnx')), { targetOpset: 13 });
    expect(summary.initializerInputsRemoved).toBe(8);
    expect(model.graph!.input.map((v) => v.name)).toEqual(['Input3']);
    expect(summary.opsetChanges).toEqual([]);
    expect(summary.irVersion).toEqual({ from: 3, to: 7 });
  });
});
