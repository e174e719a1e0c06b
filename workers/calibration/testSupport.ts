/**
 * For tests only (never imported by a worker): onnxruntime-node behind the worker's Runtime
 * interface, and a fake image decoder, so calibration runs in Node exactly as it does in a worker; the workers'
 * tests share them, `rejection` for the named errors their APIs reject with, and a per-pixel classifier made in code.
 */
import { ortNodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import {
  DataType,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
} from '../../src/core/onnx/index.ts';
import type { RgbaImage } from '../../src/core/preprocess/resize.ts';
import { seededFloats } from '../../tests/helpers/fixtures.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import type { CalibrationSample } from '../../src/core/calibrate/run/samples.ts';
import type { TaskHead } from '../../src/core/task/heads.ts';

/** onnxruntime-node (src/cli/runtime/ortNode.ts) as a worker's Runtime, one thread a session; counts sessions. */
export function nodeWorkerRuntime(sessions = { created: 0 }): Runtime {
  return ortNodeRuntime(1, sessions);
}

/** Decodes the fake files of the tests: 'ok:<seed>' is a 40×30 image of seeded noise, anything else is corrupt. */
export async function fakeDecode(file: Blob): Promise<RgbaImage> {
  const text = await file.text();
  if (!text.startsWith('ok:')) throw new Error('The source image could not be decoded.');
  const seed = Number(text.slice(3));
  const w = 40;
  const h = 30;
  const data = new Uint8ClampedArray(w * h * 4);
  const values = seededFloats(w * h * 4, seed, 0, 256);
  for (let i = 0; i < data.length; i++) data[i] = i % 4 === 3 ? 255 : values[i];
  return { data, width: w, height: h };
}

export const fakeImage = (name: string, content: string): CalibrationSample => ({
  kind: 'image',
  name,
  file: new Blob([content]),
});
export const fakeImages = (n: number) => Array.from({ length: n }, (_, i) => fakeImage(`img${i}.png`, `ok:${i + 1}`));

/** The error `p` rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: Error) => e,
  );
}

/**
 * A per-pixel classifier made in code, the size of the fake images (image [1, 3, 30, 40] → classes [1, 3, 30, 40]): a 1×1
 * Conv mixing the three colour channels into three class scores. Its encoded bytes.
 */
export function pixelClassifier(): ArrayBuffer {
  const w = makeTensor('w', DataType.FLOAT, [3, 3, 1, 1], Float32Array.from([1, 0.2, 0, 0, 1, 0.2, 0.2, 0, 1]));
  const model = makeModel(
    makeGraph({
      name: 'seg',
      node: [makeNode('Conv', ['image', 'w'], ['classes'], 'conv')],
      input: [makeValueInfo('image', DataType.FLOAT, [1, 3, 30, 40])],
      output: [makeValueInfo('classes', DataType.FLOAT, [1, 3, 30, 40])],
      initializer: [w],
    }),
    { '': 13 },
    7,
  );
  return Uint8Array.from(encode(model)).buffer as ArrayBuffer;
}

/** The pixel classifier's task head: a segmentation whose masks are its class scores above 0.5. */
export const PIXEL_CLASSIFIER_HEAD: TaskHead = {
  task: 'segment',
  output: 'classes',
  maskThreshold: 0.5,
  classNames: null,
};
