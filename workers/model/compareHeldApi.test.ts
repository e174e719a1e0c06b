import { afterEach, describe, expect, it } from 'vitest';
import { encode } from '../../src/core/onnx/index.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { quantizedFixture } from '../../tests/helpers/quantizedFixtures.ts';
import { compareApi } from '../compare/compareApi.ts';
import { compareHeldApi } from './compareHeldApi.ts';
import { modelApi } from './modelApi.ts';

const blob = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);
const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;

describe('the open model compared where it is held', () => {
  let handle: string | null = null;
  afterEach(() => {
    if (handle) modelApi.close(handle);
    handle = null;
  });

  it('compares the held model with a file as the comparison worker compares the two files', async () => {
    const float = readModel('yolox-nano.onnx');
    const quantized = encode(quantizedFixture('yolox-nano.onnx'));
    handle = (await modelApi.open(buffer(float), 'yolox-nano.onnx')).handle;
    const phases: string[] = [];
    const held = await compareHeldApi.compareWithHeld(
      handle,
      'yolox-nano.onnx',
      { name: 'q.onnx', blob: blob(quantized) },
      (_, phase) => phases.push(phase),
    );
    const files = await compareApi.compare(
      { name: 'yolox-nano.onnx', blob: blob(float) },
      { name: 'q.onnx', blob: blob(quantized) },
    );
    // The first is not read again: its phase is folding, not reading.
    expect(phases).not.toContain('reading yolox-nano.onnx');
    expect(phases).toContain('reading q.onnx');
    expect(held.decoded).toEqual(['q.onnx']);
    expect(files.decoded).toEqual(['yolox-nano.onnx', 'q.onnx']);
    expect(held.comparison.mapping).toEqual(files.comparison.mapping);
    expect(held.comparison.mapping.related).toBe(true);
    expect(Array.from(held.comparison.counterpart.a)).toEqual(Array.from(files.comparison.counterpart.a));
    expect(held.comparison.marks).toEqual(files.comparison.marks);
    expect(Array.from(held.layouts.b.x)).toEqual(Array.from(files.layouts.b.x));
  });

  it('a second file that is not a model fails by name', async () => {
    handle = (await modelApi.open(buffer(readModel('mnist.onnx')), 'mnist.onnx')).handle;
    const png = new Blob([Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3)]);
    await expect(
      compareHeldApi.compareWithHeld(handle, 'mnist.onnx', { name: 'picture.onnx', blob: png }),
    ).rejects.toMatchObject({ message: expect.stringContaining('picture.onnx') });
  });
});
