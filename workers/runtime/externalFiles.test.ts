import { describe, expect, it } from 'vitest';
import { readBlob, readExternalFiles } from './externalFiles.ts';

describe('external-data files read inside a worker', () => {
  const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 251);

  it('reads a blob in pieces into one buffer equal to the whole (pieces that do not divide it included)', async () => {
    for (const piece of [1000, 999, 256, 7]) {
      const read = await readBlob(new Blob([bytes]), piece);
      expect(read.byteLength).toBe(1000);
      expect(read).toEqual(bytes);
    }
  });

  it('reads every given file by the name the model uses; none given is an empty map', async () => {
    const files = await readExternalFiles({
      'a.onnx.data': new Blob([bytes.subarray(0, 10)]),
      'b.bin': new File([bytes.subarray(10, 15)], 'b.bin'),
    });
    expect([...files.keys()]).toEqual(['a.onnx.data', 'b.bin']);
    expect(files.get('b.bin')).toEqual(bytes.subarray(10, 15));
    expect((await readExternalFiles(undefined)).size).toBe(0);
  });
});
