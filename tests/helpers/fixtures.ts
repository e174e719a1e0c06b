/**
 * Where the shared fixtures are and how to feed them: each model's input shape with its symbolic
 * dimensions made concrete, and deterministic pseudo-random inputs for runs that compare two models.
 */
import path from 'node:path';
import fs from 'node:fs';

export const FIXTURES = path.resolve(import.meta.dirname, '../../../shared/fixtures');
export const MODELS = path.join(FIXTURES, 'models');
export const IMAGES = path.join(FIXTURES, 'images');

/** The float fixture models (not the negative ones), by file name. */
export const FIXTURE_MODELS = [
  'mnist.onnx',
  'super-resolution-10.onnx',
  'ultraface-rfb-320.onnx',
  'ultraface-rfb-320-nopost.onnx',
  'yolox-nano.onnx',
  'yunet-n-dynamic.onnx',
] as const;

export const NEGATIVE_MODELS = ['custom-domain-op.onnx', 'truncated.onnx', 'not-a-model.onnx'] as const;

/** Values for symbolic dimensions used when a test runs a fixture. */
export const CONCRETE_DIMS: Record<string, number> = { batch: 1, batch_size: 1, height: 320, width: 320 };

export function readModel(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(MODELS, name)));
}

/** A deterministic uniform [lo, hi) float32 sequence (mulberry32). */
export function seededFloats(count: number, seed: number, lo = 0, hi = 1): Float32Array {
  let a = seed >>> 0;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = lo + (hi - lo) * (((t ^ (t >>> 14)) >>> 0) / 4294967296);
  }
  return out;
}
