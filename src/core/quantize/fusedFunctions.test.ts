import { describe, expect, it } from 'vitest';
import { buildGraphIndex, DataType, intAttribute, makeNode, makeTensor } from '../onnx/index.ts';
import { findFusedFunctions } from './fusedFunctions.ts';
import { attentionBlockModel, convReluModel } from './testModels.ts';
import { planQuantization } from './plan.ts';
import { validateConfig } from './config.ts';
import { hasAttentionBlocks } from './attentionBlocks.ts';

const outputsOf = (index: ReturnType<typeof buildGraphIndex>, nodes: readonly number[]) =>
  nodes.map((n) => index.nodes[n].output[0]);

describe('findFusedFunctions (element-wise functions written out as several nodes)', () => {
  const index = buildGraphIndex(attentionBlockModel().graph!);
  const found = findFusedFunctions(index, () => true);

  it('finds the written-out LayerNorm, and HardSwish followed by GELU as one function of the residual', () => {
    expect(found.map((f) => [f.kind, f.input, f.output])).toEqual([
      ['layernorm', 'x', 'h'],
      ['gelu', 'residual', 'y'],
    ]);
    expect(outputsOf(index, found[0].nodes)).toEqual([
      'ln_mean',
      'ln_centered',
      'ln_squared',
      'ln_variance',
      'ln_variance_eps',
      'ln_std',
      'ln_normalized',
      'ln_scaled',
      'h',
    ]);
    expect(found[1].internal).toEqual([
      'hs_shifted',
      'hs_clipped',
      'hs_product',
      'hs',
      'gelu_scaled',
      'gelu_erf',
      'gelu_shifted',
      'gelu_product',
    ]);
  });

  it('ends a function where one of its tensors is read outside it', () => {
    const model = attentionBlockModel();
    model.graph!.output.push({ ...model.graph!.output[0], name: 'hs' });
    const split = findFusedFunctions(buildGraphIndex(model.graph!), () => true);
    expect(split.map((f) => [f.kind, f.input, f.output])).toEqual([
      ['layernorm', 'x', 'h'],
      ['hardswish', 'residual', 'hs'],
      ['gelu', 'hs', 'y'],
    ]);
  });

  it('leaves attention (MatMul, Transpose, Softmax) and the residual Add alone: they read two activations', () => {
    const inFunctions = new Set(found.flatMap((f) => outputsOf(index, f.nodes)));
    for (const t of ['q', 'kt', 'scores', 'scores_scaled', 'attention', 'context', 'residual'])
      expect(inFunctions.has(t)).toBe(false);
  });

  it('takes no node the caller does not allow, and finds nothing in a graph without written-out functions', () => {
    const sub = index.nodes.findIndex((n) => n.output[0] === 'ln_centered');
    const without = findFusedFunctions(index, (i) => i !== sub);
    expect(without.some((f) => f.nodes.includes(sub))).toBe(false);
    expect(without.some((f) => f.input === 'x' && f.output === 'h')).toBe(false);
    expect(findFusedFunctions(buildGraphIndex(convReluModel().graph!), () => true)).toEqual([]);
  });
});

describe('the plan under enableNpuTransformer', () => {
  const model = attentionBlockModel();
  const index = buildGraphIndex(model.graph!);
  // Ranges wide enough for every tensor; Softmax's calibrated range is deliberately wrong.
  const ranges = new Map(
    index.nodes
      .flatMap((n) => n.output)
      .concat('x')
      .map((t) => [t, { min: -4, max: 4 }]),
  );
  ranges.set('attention', { min: 0, max: 0.3 });
  const plan = (enableNpuTransformer: boolean) =>
    planQuantization(
      index,
      ranges,
      validateConfig({ activationType: 'uint8', weightType: 'int8', enableNpuTransformer }),
      () => undefined,
    );

  it("puts Q/DQ at each function's input and output only, and quantizes its nodes as one family", () => {
    const on = plan(true);
    for (const t of ['ln_mean', 'ln_squared', 'ln_normalized', 'hs_product', 'gelu_erf'])
      expect(on.activations.has(t)).toBe(false);
    for (const t of ['x', 'h', 'residual', 'y', 'q', 'kt', 'attention']) expect(on.activations.has(t)).toBe(true);
    const sqrt = index.nodes.findIndex((n) => n.op_type === 'Sqrt');
    expect(on.decisions[sqrt]).toEqual({ quantized: true, family: 'layernorm' });
    // The function's constants (ε, γ, 3, 6, √2) stay float.
    expect([...on.constants.keys()].some((k) => /^(epsilon|gamma|three|six|sqrt2)\|/.test(k))).toBe(false);
    const off = plan(false);
    expect(off.activations.has('ln_normalized')).toBe(true);
    expect(off.activations.size).toBeGreaterThan(on.activations.size);
  });

  it("quantizes Softmax's output on [0, 1], not on its calibrated range", () => {
    const attention = plan(true).activations.get('attention')!;
    expect(attention.zeroPoint).toBe(0);
    expect(attention.scale).toBeCloseTo(1 / 255, 9);
    expect(plan(false).activations.get('attention')!.scale).toBeCloseTo(0.3 / 255, 9);
  });

  it("keeps Softmax's [0, 1] through the Flatten and Reshape that raising an opset-11 Softmax to 13 puts around it", () => {
    // As preparation writes it (PP-OCRv4's recognizer): scores_scaled → Flatten → Softmax → Reshape → attention.
    // Calibration ran on the source model, so only attention (the Reshape's output) has a calibrated range.
    const wrapped = attentionBlockModel();
    const nodes = wrapped.graph!.node;
    const at = nodes.findIndex((n) => n.op_type === 'Softmax');
    nodes.splice(
      at,
      1,
      makeNode('Flatten', ['scores_scaled'], ['sm_flat'], 'Softmax/Flatten', [intAttribute('axis', 2)]),
      makeNode('Softmax', ['sm_flat'], ['sm_out'], 'Softmax', [intAttribute('axis', -1)]),
      makeNode('Reshape', ['sm_out', 'sm_shape'], ['attention'], 'Softmax/Reshape'),
    );
    wrapped.graph!.initializer.push(makeTensor('sm_shape', DataType.INT64, [3], BigInt64Array.of(1n, 6n, 8n)));
    const wrappedIndex = buildGraphIndex(wrapped.graph!);
    const wrappedRanges = new Map([...ranges].filter(([t]) => t !== 'sm_flat' && t !== 'sm_out'));
    const wrappedPlan = (enableNpuTransformer: boolean) =>
      planQuantization(
        wrappedIndex,
        wrappedRanges,
        validateConfig({ activationType: 'uint8', weightType: 'int8', enableNpuTransformer }),
        () => undefined,
      );
    const on = wrappedPlan(true);
    expect(on.activations.get('attention')!.scale).toBeCloseTo(1 / 255, 9);
    // The inner tensors take their neighbours' ranges across the Flatten and the Reshape: the Softmax is
    // quantized (Q/DQ on its input and output), not a float island between DQ and Q.
    const softmax = wrappedIndex.nodes.findIndex((n) => n.op_type === 'Softmax');
    expect(on.decisions[softmax]).toMatchObject({ quantized: true, family: 'softmax' });
    expect(on.activations.get('sm_flat')!.scale).toBeCloseTo(on.activations.get('scores_scaled')!.scale, 12);
    expect(on.activations.get('sm_out')!.scale).toBeCloseTo(1 / 255, 9);
    // Without the transformer rules its output shares the calibrated range of the Reshape's output.
    const off = wrappedPlan(false);
    expect(off.decisions[softmax]).toMatchObject({ quantized: true, family: 'softmax' });
    expect(off.activations.get('sm_out')!.scale).toBeCloseTo(0.3 / 255, 9);
  });
});

describe('hasAttentionBlocks', () => {
  it('is true for a written-out transformer block and false for a Conv/Relu model', () => {
    expect(hasAttentionBlocks(attentionBlockModel())).toBe(true);
    expect(hasAttentionBlocks(convReluModel())).toBe(false);
  });
});
