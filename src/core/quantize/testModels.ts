/**
 * Small models built in code for the quantizer's and the metrics' tests: real graphs onnxruntime runs,
 * with the calibrated ranges a test would otherwise have to invent each time.
 */
import {
  DataType,
  graphAttribute,
  intAttribute,
  intsAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  type ModelProto,
} from '../onnx/index.ts';

/** A float32 initializer of `dims` whose element k (flat, row-major) is `value(k)`. */
function floatTensor(name: string, dims: number[], value: (k: number) => number) {
  const count = dims.reduce((a, b) => a * b, 1);
  return makeTensor(
    name,
    DataType.FLOAT,
    dims,
    Float32Array.from({ length: count }, (_, k) => value(k)),
  );
}

/** x → Conv(w, b) → c → Relu → y (graph output), y → Exp (no rule, stays float) → z. */
export function convReluModel(): ModelProto {
  const w = makeTensor('w', DataType.FLOAT, [2, 1, 1, 1], Float32Array.of(0.5, -0.25));
  const b = makeTensor('b', DataType.FLOAT, [2], Float32Array.of(0.1, 0.2));
  return makeModel(
    makeGraph({
      node: [makeNode('Conv', ['x', 'w', 'b'], ['c']), makeNode('Relu', ['c'], ['y']), makeNode('Exp', ['y'], ['z'])],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 2, 2])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 2, 2, 2]), makeValueInfo('z', DataType.FLOAT, [1, 2, 2, 2])],
      initializer: [w, b],
    }),
    { '': 13 },
  );
}

/** Calibrated ranges of convReluModel's tensors. */
export const CONV_RELU_RANGES: ReadonlyMap<string, { min: number; max: number }> = new Map([
  ['x', { min: -1, max: 1 }],
  ['c', { min: -0.5, max: 0.7 }],
  ['y', { min: 0, max: 0.7 }],
  ['z', { min: 1, max: 2.1 }],
]);

/**
 * A LayerNormalization written out as exporters do below opset 17, shape arithmetic included:
 * x [2, 3, 4] → Shape → Gather(0) → Concat(·, [-1]) gives an int64 target shape for Reshape; the
 * float path is Reshape → ReduceMean → Sub → Mul → y. A Cast of the int64 batch size back to float and
 * an Equal → Where show the other kinds of non-float tensor exporters write.
 */
export function shapeArithmeticModel(): ModelProto {
  const int64 = (name: string, values: number[]) =>
    makeTensor(name, DataType.INT64, [values.length], BigInt64Array.from(values.map(BigInt)));
  return makeModel(
    makeGraph({
      node: [
        makeNode('Shape', ['x'], ['x_shape']),
        makeNode('Gather', ['x_shape', 'zero'], ['batch'], '', [intAttribute('axis', 0)]),
        makeNode('Concat', ['batch', 'minus_one'], ['flat_shape'], '', [intAttribute('axis', 0)]),
        makeNode('Reshape', ['x', 'flat_shape'], ['flat']),
        makeNode('ReduceMean', ['flat'], ['mean'], '', [intAttribute('keepdims', 1), intsAttribute('axes', [1])]),
        makeNode('Sub', ['flat', 'mean'], ['centred']),
        makeNode('Cast', ['batch'], ['batch_float'], '', [intAttribute('to', DataType.FLOAT)]),
        makeNode('Mul', ['centred', 'batch_float'], ['scaled']),
        makeNode('Greater', ['scaled', 'zero_float'], ['positive']),
        makeNode('Where', ['positive', 'scaled', 'zero_float'], ['y']),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [2, 3, 4])],
      output: [makeValueInfo('y', DataType.FLOAT, [2, 12])],
      initializer: [
        int64('zero', [0]),
        int64('minus_one', [-1]),
        makeTensor('zero_float', DataType.FLOAT, [], Float32Array.of(0)),
      ],
    }),
    { '': 13 },
  );
}

/** x [1, 1, 4, 4] → MaxPool(2×2) → pooled (float) and indices (int64, MaxPool's second output), both graph outputs. */
export function maxPoolWithIndicesModel(): ModelProto {
  return makeModel(
    makeGraph({
      node: [
        makeNode('MaxPool', ['x'], ['pooled', 'indices'], '', [
          intsAttribute('kernel_shape', [2, 2]),
          intsAttribute('strides', [2, 2]),
        ]),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 4, 4])],
      output: [
        makeValueInfo('pooled', DataType.FLOAT, [1, 1, 2, 2]),
        makeValueInfo('indices', DataType.INT64, [1, 1, 2, 2]),
      ],
    }),
    { '': 13 },
  );
}

/** A range for every tensor a node of `model` produces, whatever its type, as a ranges file from another tool may carry. */
export function rangesForEveryTensor(model: ModelProto): Map<string, { min: number; max: number }> {
  const out = new Map<string, { min: number; max: number }>([[model.graph!.input[0].name!, { min: -1, max: 1 }]]);
  for (const n of model.graph!.node) for (const o of n.output) out.set(o, { min: -2, max: 3 });
  return out;
}

/**
 * A transformer block as older exporters write it (opset 13): LayerNorm written out (ReduceMean, Sub, Pow,
 * ReduceMean, Add, Sqrt, Div, Mul, Add), single-head attention (MatMul with weights, MatMul between two
 * activations, Softmax), the residual Add, then HardSwish written out (Add 3, Clip, Mul, Div 6) and GELU
 * written out (Div √2, Erf, Add 1, Mul, Mul 0.5). x: [1, 6, 8] → y: [1, 6, 8].
 */
export function attentionBlockModel(): ModelProto {
  const d = 8;
  const weight = (name: string, seed: number) => floatTensor(name, [d, d], (i) => Math.sin(seed * 7.1 + i * 1.3) * 0.4);
  const scalar = (name: string, v: number) => makeTensor(name, DataType.FLOAT, [], Float32Array.of(v));
  const vector = (name: string, f: (i: number) => number) => floatTensor(name, [d], f);
  const mean = (x: string, y: string) =>
    makeNode('ReduceMean', [x], [y], '', [intsAttribute('axes', [-1]), intAttribute('keepdims', 1)]);
  return makeModel(
    makeGraph({
      name: 'attention_block',
      node: [
        mean('x', 'ln_mean'),
        makeNode('Sub', ['x', 'ln_mean'], ['ln_centered']),
        makeNode('Pow', ['ln_centered', 'two'], ['ln_squared']),
        mean('ln_squared', 'ln_variance'),
        makeNode('Add', ['ln_variance', 'epsilon'], ['ln_variance_eps']),
        makeNode('Sqrt', ['ln_variance_eps'], ['ln_std']),
        makeNode('Div', ['ln_centered', 'ln_std'], ['ln_normalized']),
        makeNode('Mul', ['ln_normalized', 'gamma'], ['ln_scaled']),
        makeNode('Add', ['ln_scaled', 'beta'], ['h']),
        makeNode('MatMul', ['h', 'wq'], ['q']),
        makeNode('MatMul', ['h', 'wk'], ['k']),
        makeNode('MatMul', ['h', 'wv'], ['v']),
        makeNode('Transpose', ['k'], ['kt'], '', [intsAttribute('perm', [0, 2, 1])]),
        makeNode('MatMul', ['q', 'kt'], ['scores']),
        makeNode('Mul', ['scores', 'inv_sqrt_d'], ['scores_scaled']),
        makeNode('Softmax', ['scores_scaled'], ['attention'], '', [intAttribute('axis', -1)]),
        makeNode('MatMul', ['attention', 'v'], ['context']),
        makeNode('Add', ['x', 'context'], ['residual']),
        makeNode('Add', ['residual', 'three'], ['hs_shifted']),
        makeNode('Clip', ['hs_shifted', 'zero', 'six'], ['hs_clipped']),
        makeNode('Mul', ['residual', 'hs_clipped'], ['hs_product']),
        makeNode('Div', ['hs_product', 'six'], ['hs']),
        makeNode('Div', ['hs', 'sqrt2'], ['gelu_scaled']),
        makeNode('Erf', ['gelu_scaled'], ['gelu_erf']),
        makeNode('Add', ['gelu_erf', 'one'], ['gelu_shifted']),
        makeNode('Mul', ['hs', 'gelu_shifted'], ['gelu_product']),
        makeNode('Mul', ['gelu_product', 'half'], ['y']),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 6, d])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 6, d])],
      initializer: [
        scalar('two', 2),
        scalar('epsilon', 1e-5),
        scalar('three', 3),
        scalar('zero', 0),
        scalar('six', 6),
        scalar('sqrt2', Math.SQRT2),
        scalar('one', 1),
        scalar('half', 0.5),
        scalar('inv_sqrt_d', 1 / Math.sqrt(d)),
        vector('gamma', (i) => 0.5 + 0.1 * i),
        vector('beta', (i) => 0.05 * i - 0.2),
        weight('wq', 1),
        weight('wk', 2),
        weight('wv', 3),
      ],
    }),
    { '': 13 },
  );
}

/**
 * Control flow as exported RNNs and wake-word models write it: subgraphs that read main-graph initializers and
 * tensors by name (outer scope), at two depths. x [1, 4] → Gemm(w0, b0) → h; If(sum(h) > 0) computes y from h:
 * its then branch Gemm(wt, bt) and a nested If (MatMul by wn, or Relu), its else branch MatMul by we; Loop runs
 * v ← Tanh(v·w0 + b0) three times from y (w0, b0 shared with the main Gemm, which quantizes them); Relu → out.
 * wt, bt, wn, we are read only inside subgraphs.
 */
export function controlFlowModel(): ModelProto {
  const seeded = (name: string, dims: number[], seed: number) =>
    floatTensor(name, dims, (k) => Math.sin(seed * 7.1 + k * 1.3) * 0.8);
  const row = (name: string) => makeValueInfo(name, DataType.FLOAT, [1, 4]);
  const inner = makeNode('If', ['cond'], ['t2'], 'inner_if', [
    graphAttribute(
      'then_branch',
      makeGraph({
        name: 'inner_then',
        node: [makeNode('MatMul', ['t1', 'wn'], ['nt'], 'inner_matmul')],
        input: [],
        output: [row('nt')],
      }),
    ),
    graphAttribute(
      'else_branch',
      makeGraph({
        name: 'inner_else',
        node: [makeNode('Relu', ['t1'], ['ne'], 'inner_relu')],
        input: [],
        output: [row('ne')],
      }),
    ),
  ]);
  const thenBranch = makeGraph({
    name: 'then',
    node: [makeNode('Gemm', ['h', 'wt', 'bt'], ['t1'], 'then_gemm'), inner],
    input: [],
    output: [row('t2')],
  });
  const elseBranch = makeGraph({
    name: 'else',
    node: [makeNode('MatMul', ['h', 'we'], ['ye'], 'else_matmul')],
    input: [],
    output: [row('ye')],
  });
  const body = makeGraph({
    name: 'body',
    node: [
      makeNode('MatMul', ['v', 'w0'], ['m'], 'body_matmul'),
      makeNode('Add', ['m', 'b0'], ['a'], 'body_add'),
      makeNode('Tanh', ['a'], ['v_next'], 'body_tanh'),
      makeNode('Identity', ['cond_in'], ['cond_out'], 'body_cond'),
    ],
    input: [makeValueInfo('iteration', DataType.INT64, []), makeValueInfo('cond_in', DataType.BOOL, []), row('v')],
    output: [makeValueInfo('cond_out', DataType.BOOL, []), row('v_next')],
  });
  return makeModel(
    makeGraph({
      name: 'control_flow',
      node: [
        makeNode('Gemm', ['x', 'w0', 'b0'], ['h'], 'gemm'),
        makeNode('ReduceSum', ['h'], ['s'], 'sum', [intAttribute('keepdims', 0)]),
        makeNode('Greater', ['s', 'zero'], ['cond'], 'positive'),
        makeNode('If', ['cond'], ['y'], 'if', [
          graphAttribute('then_branch', thenBranch),
          graphAttribute('else_branch', elseBranch),
        ]),
        makeNode('Loop', ['trips', 'keep_going', 'y'], ['z'], 'loop', [graphAttribute('body', body)]),
        makeNode('Relu', ['z'], ['out'], 'relu'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 4])],
      output: [makeValueInfo('out', DataType.FLOAT, [1, 4])],
      initializer: [
        seeded('w0', [4, 4], 1),
        seeded('b0', [4], 2),
        seeded('wt', [4, 4], 3),
        seeded('bt', [4], 4),
        seeded('wn', [4, 4], 5),
        seeded('we', [4, 4], 6),
        makeTensor('zero', DataType.FLOAT, [], Float32Array.of(0)),
        makeTensor('trips', DataType.INT64, [], BigInt64Array.of(3n)),
        makeTensor('keep_going', DataType.BOOL, [], Uint8Array.of(1)),
      ],
    }),
    { '': 13 },
    7,
  );
}

/**
 * A Scan as exported recurrent cells write one: x [5, 1, 4] is scanned along its first axis; the body reads its
 * weights from the main graph (outer scope) and carries a state h [1, 4]: h ← Tanh(xₜ·wx + h·wh + b), and emits
 * yₜ = Relu(h·wy) each step. The main graph reads the last state (MatMul by wf → out) and the sequence (Sigmoid → seq).
 */
export function scanModel(): ModelProto {
  const seeded = (name: string, dims: number[], seed: number) =>
    floatTensor(name, dims, (k) => Math.cos(seed * 3.7 + k * 0.9) * 0.7);
  const row = (name: string) => makeValueInfo(name, DataType.FLOAT, [1, 4]);
  const body = makeGraph({
    name: 'scan_body',
    node: [
      makeNode('MatMul', ['xt', 'wx'], ['mx'], 'scan_matmul_x'),
      makeNode('MatMul', ['h', 'wh'], ['mh'], 'scan_matmul_h'),
      makeNode('Add', ['mx', 'mh'], ['pre'], 'scan_add'),
      makeNode('Add', ['pre', 'b'], ['pre_b'], 'scan_bias'),
      makeNode('Tanh', ['pre_b'], ['h_next'], 'scan_tanh'),
      makeNode('MatMul', ['h_next', 'wy'], ['my'], 'scan_matmul_y'),
      makeNode('Relu', ['my'], ['yt'], 'scan_relu'),
    ],
    input: [row('h'), row('xt')],
    output: [row('h_next'), row('yt')],
  });
  return makeModel(
    makeGraph({
      name: 'scan',
      node: [
        makeNode('Scan', ['h0', 'x'], ['h_last', 'ys'], 'scan', [
          graphAttribute('body', body),
          intAttribute('num_scan_inputs', 1),
        ]),
        makeNode('MatMul', ['h_last', 'wf'], ['out'], 'final_matmul'),
        makeNode('Sigmoid', ['ys'], ['seq'], 'sigmoid'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [5, 1, 4])],
      output: [row('out'), makeValueInfo('seq', DataType.FLOAT, [5, 1, 4])],
      initializer: [
        makeTensor('h0', DataType.FLOAT, [1, 4], new Float32Array(4)),
        seeded('wx', [4, 4], 1),
        seeded('wh', [4, 4], 2),
        seeded('b', [4], 3),
        seeded('wy', [4, 4], 4),
        seeded('wf', [4, 4], 5),
      ],
    }),
    { '': 13 },
    7,
  );
}

/**
 * Every compute node inside one If, as Silero VAD's opset-18 export writes it (the main graph only decides the
 * branch): x [1, 8]; If(sum(x) > −1000) runs then: MatMul(w1) → Tanh → MatMul(w2) → Relu → y, else: MatMul(w3) → y.
 * w1 has one large entry per row, so 8-bit rounding of the rest costs the output measurably.
 */
export function ifComputeModel(): ModelProto {
  const seeded = (name: string, seed: number) =>
    floatTensor(name, [8, 8], (k) => (k % 9 === 0 ? 6 : Math.sin(seed * 5.3 + k * 1.1) * 0.3));
  const row = (name: string) => makeValueInfo(name, DataType.FLOAT, [1, 8]);
  const thenBranch = makeGraph({
    name: 'then',
    node: [
      makeNode('MatMul', ['x', 'w1'], ['m1'], 'then_matmul1'),
      makeNode('Tanh', ['m1'], ['t1'], 'then_tanh'),
      makeNode('MatMul', ['t1', 'w2'], ['m2'], 'then_matmul2'),
      makeNode('Relu', ['m2'], ['r2'], 'then_relu'),
    ],
    input: [],
    output: [row('r2')],
  });
  const elseBranch = makeGraph({
    name: 'else',
    node: [makeNode('MatMul', ['x', 'w3'], ['m3'], 'else_matmul')],
    input: [],
    output: [row('m3')],
  });
  return makeModel(
    makeGraph({
      name: 'if_compute',
      node: [
        makeNode('ReduceSum', ['x'], ['s'], 'sum', [intAttribute('keepdims', 0)]),
        makeNode('Greater', ['s', 'floor'], ['cond'], 'decide'),
        makeNode('If', ['cond'], ['y'], 'if', [
          graphAttribute('then_branch', thenBranch),
          graphAttribute('else_branch', elseBranch),
        ]),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 8])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 8])],
      initializer: [
        seeded('w1', 1),
        seeded('w2', 2),
        seeded('w3', 3),
        makeTensor('floor', DataType.FLOAT, [], Float32Array.of(-1000)),
      ],
    }),
    { '': 13 },
    7,
  );
}

/**
 * x [1, 3, 8, 8] → Conv ('conv') → BatchNormalization ('bn') → Relu → Conv ('conv2') → y: preparation folds the
 * BatchNormalization into the first Conv (float rounding only; the report lists the fold).
 */
export function convBatchNormModel(): ModelProto {
  return makeModel(
    makeGraph({
      node: [
        makeNode('Conv', ['x', 'w1'], ['c1'], 'conv', [intsAttribute('pads', [1, 1, 1, 1])]),
        makeNode('BatchNormalization', ['c1', 'gamma', 'beta', 'mean', 'var'], ['bn_out'], 'bn'),
        makeNode('Relu', ['bn_out'], ['r'], 'relu'),
        makeNode('Conv', ['r', 'w2', 'b2'], ['y'], 'conv2'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 3, 8, 8])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 4, 8, 8])],
      initializer: [
        floatTensor('w1', [6, 3, 3, 3], (k) => Math.sin(k * 1.7) * 0.3),
        floatTensor('gamma', [6], (k) => 0.7 + 0.13 * k),
        floatTensor('beta', [6], (k) => 0.05 * k - 0.1),
        floatTensor('mean', [6], (k) => 0.03 * k),
        floatTensor('var', [6], (k) => 0.9 + 0.21 * k),
        floatTensor('w2', [4, 6, 1, 1], (k) => Math.cos(k * 0.9) * 0.4),
        floatTensor('b2', [4], (k) => 0.01 * k),
      ],
    }),
    { '': 13 },
  );
}
