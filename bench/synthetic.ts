/**
 * Synthetic models for benchmarks: real, runnable ONNX graphs of a chosen weight size, built in code
 * (no binary is committed). A chain of MatMul→Add→Relu layers with square float32 weights.
 */
import {
  DataType,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  type ModelProto,
} from '../src/core/onnx/index.ts';

/**
 * Seeded numbers in [-0.5, 0.5) for synthetic weights: a 32-bit linear congruential generator (Numerical Recipes'
 * constants), the same sequence for the same seed, so a synthetic model is the same file every time.
 */
export function centredUniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296 - 0.5;
  };
}

/** A model of `layers` MatMul(width×width)+bias+Relu layers; weights = layers × width² × 4 bytes. */
export function syntheticMlp(layers: number, width: number, seed = 1): ModelProto {
  const nodes = [];
  const initializers = [];
  let x = 'input';
  const uniform = centredUniform(seed);
  for (let l = 0; l < layers; l++) {
    const w = new Float32Array(width * width);
    for (let i = 0; i < w.length; i++) w[i] = uniform() * (2 / Math.sqrt(width));
    initializers.push(
      makeTensor(`w${l}`, DataType.FLOAT, [width, width], w),
      makeTensor(`b${l}`, DataType.FLOAT, [width], new Float32Array(width).fill(0.01)),
    );
    nodes.push(
      makeNode('MatMul', [x, `w${l}`], [`mm${l}`], `MatMul_${l}`),
      makeNode('Add', [`mm${l}`, `b${l}`], [`add${l}`], `Add_${l}`),
      makeNode('Relu', [`add${l}`], [`relu${l}`], `Relu_${l}`),
    );
    x = `relu${l}`;
  }
  const graph = makeGraph({
    name: `synthetic-mlp-${layers}x${width}`,
    node: nodes,
    input: [makeValueInfo('input', DataType.FLOAT, [1, width])],
    output: [makeValueInfo(x, DataType.FLOAT, [1, width])],
    initializer: initializers,
  });
  return makeModel(graph, { '': 13 }, 8);
}

/** The ≥100 MB model the issues ask benchmarks to cover: 26 layers of 1024×1024 (104 MB of weights). */
export const SYNTHETIC_100MB = { layers: 26, width: 1024 } as const;
