/**
 * For tests only (never imported by a worker): onnxruntime-node behind the worker's Runtime
 * interface, and a fake image decoder, so calibration runs in Node exactly as it does in a worker; the workers'
 * tests share them, and `rejection` for the named errors their APIs reject with.
 */
import { ortNodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import type { RgbaImage } from '../../src/core/preprocess/resize.ts';
import { seededFloats } from '../../tests/helpers/fixtures.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import type { CalibrationSample } from '../../src/core/calibrate/run/samples.ts';

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
