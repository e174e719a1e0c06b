import { afterEach, describe, expect, it } from 'vitest';
import { createSession, float32Tensor } from '../../src/cli/runtime/ortNode.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { openModel } from '../../src/core/onnx/index.ts';
import { readModel, seededFloats } from '../../tests/helpers/fixtures.ts';
import { heldModel, modelApi } from './modelApi.ts';
import { quantizeApi } from './quantizeApi.ts';
import { wasmChoice } from '../runtime/ort.ts';

function fixtureBuffer(name: string): ArrayBuffer {
  const bytes = readModel(name);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Ranges of mnist from one seeded input, as a calibration would give them (MinMax of every tensor). */
async function mnistRanges(): Promise<Record<string, [number, number]>> {
  const { model } = openModel(readModel('mnist.onnx'));
  const { exposeTensors, observableTensors } = await import('../../src/core/calibrate/run/expose.ts');
  const { encode } = await import('../../src/core/onnx/index.ts');
  const session = await createSession(encode(exposeTensors(model, observableTensors(model))));
  const input = seededFloats(28 * 28, 3);
  const out = await session.run({ Input3: float32Tensor(input, [1, 1, 28, 28]) });
  await session.release();
  const ranges: Record<string, [number, number]> = { Input3: [0, 1] };
  for (const [name, t] of Object.entries(out)) {
    const d = t.data as Float32Array;
    ranges[name] = [Math.min(0, ...d), Math.max(0, ...d)];
  }
  return ranges;
}

describe('quantizeApi (in the model worker)', () => {
  const opened: string[] = [];
  afterEach(() => {
    for (const h of opened.splice(0)) modelApi.close(h);
  });

  it('quantizes the held model into fresh parts that onnxruntime loads, and leaves the held bytes alone', async () => {
    const { handle } = await modelApi.open(fixtureBuffer('mnist.onnx'), 'mnist.onnx');
    opened.push(handle);
    const out = quantizeApi.quantize(handle, await mnistRanges(), getPreset('U8S8'), 'U8S8');
    expect(out.report.counts.quantized).toBeGreaterThan(0);
    expect(out.report.config).toBe('U8S8');
    expect(out.parts.every((p) => p !== heldModel(handle).bytes.buffer)).toBe(true);
    const bytes = new Uint8Array(out.byteLength);
    let at = 0;
    for (const p of out.parts) {
      bytes.set(new Uint8Array(p), at);
      at += p.byteLength;
    }
    const session = await createSession(bytes);
    const result = await session.run({ Input3: float32Tensor(seededFloats(28 * 28, 5), [1, 1, 28, 28]) });
    await session.release();
    expect(result.Plus214_Output_0.dims).toEqual([1, 10]);
    // The held model still opens its own bytes: nothing was detached or changed.
    expect(heldModel(handle).bytes.byteLength).toBe(readModel('mnist.onnx').byteLength);
  });

  it('gives a copy of the model bytes equal to the file', async () => {
    const { handle } = await modelApi.open(fixtureBuffer('mnist.onnx'), 'mnist.onnx');
    opened.push(handle);
    const copy = quantizeApi.modelBytes(handle);
    expect(copy.fileName).toBe('mnist.onnx');
    expect(new Uint8Array(copy.bytes)).toEqual(readModel('mnist.onnx'));
    expect(copy.bytes).not.toBe(heldModel(handle).bytes.buffer);
  });
});

describe('WASM threads', () => {
  it.each([
    [true, 2, undefined, 2, null],
    [true, 16, undefined, 4, null],
    [true, 8, 1, 1, null],
    [true, 1, undefined, 1, 'this machine reports one CPU core'],
    [false, 8, undefined, 1, 'the page is not cross-origin isolated, so WebAssembly threads are off'],
  ])('isolated %s, %i cores, at most %s → %i threads', (isolated, cores, wanted, threads, reason) => {
    expect(wasmChoice(isolated, cores, wanted)).toEqual({ threads, reason });
  });
});
