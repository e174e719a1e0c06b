import { describe, expect, it } from 'vitest';
import type { TensorSummary } from '../../../core/onnx/index.ts';
import { npySamples, npyTarget, sortFiles } from './files.ts';

/** A C-order float32 .npy file (format 1.0) of `dims`. */
export function npyFile(name: string, dims: number[], descr = '<f4'): File {
  const count = dims.reduce((a, b) => a * b, 1);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const bytes = new Uint8Array(10 + header.length + count * 4);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  bytes.set(new TextEncoder().encode(header), 10);
  return new File([bytes], name);
}

const file = (name: string) => new File([new Uint8Array(1)], name);
const input = (name: string, shape: (number | string)[], elemType = 'float32'): TensorSummary => ({
  name,
  elemType,
  shape,
});

describe('calibration files', () => {
  it('sorts files into images (natural order), .npy and the rest, and drops hidden files', () => {
    const sorted = sortFiles([
      file('img10.png'),
      file('img2.JPG'),
      file('a.npy'),
      file('notes.txt'),
      file('.DS_Store'),
      file('b.webp'),
    ]);
    expect(sorted.images.map((f) => f.name)).toEqual(['b.webp', 'img2.JPG', 'img10.png']);
    expect(sorted.npy.map((f) => f.name)).toEqual(['a.npy']);
    expect(sorted.rejected).toEqual([{ file: 'notes.txt', reason: expect.stringContaining('not an image') }]);
  });

  it.each([
    ['x.npy', ['input'], { input: 'input', sample: 'x.npy' }],
    ['input_ids_0.npy', ['input_ids', 'input'], { input: 'input_ids', sample: '0' }],
    ['attention_mask-0.npy', ['input_ids', 'attention_mask'], { input: 'attention_mask', sample: '0' }],
    ['s3/input_ids.npy', ['input_ids', 'attention_mask'], { input: 'input_ids', sample: 's3/' }],
    ['other_0.npy', ['input_ids', 'attention_mask'], null],
  ])('%s belongs to %j', (path, inputs, expected) => {
    expect(npyTarget(path, inputs)).toEqual(expected);
  });

  it('checks .npy files against the inputs, groups them into samples, and names the bad ones', async () => {
    const inputs = [input('a', [1, 4]), input('b', [1, 'n'])];
    const { samples, rejected } = await npySamples(
      [npyFile('a_0.npy', [1, 4]), npyFile('b_0.npy', [1, 7]), npyFile('a_1.npy', [1, 5]), npyFile('a_2.npy', [1, 4])],
      inputs,
      {},
    );
    expect(samples.map((s) => [s.name, Object.keys(s.files).sort()])).toEqual([['0', ['a', 'b']]]);
    expect(rejected).toEqual([
      { file: 'a_1.npy', reason: expect.stringMatching(/^NpyInputMismatchError: .*\[1,5\].*'a'/) },
      { file: '2', reason: 'sample has no .npy file for input b' },
    ]);
  });

  it('refuses a file that is not .npy inside', async () => {
    const { samples, rejected } = await npySamples(
      [new File([new Uint8Array([1, 2, 3])], 'x.npy')],
      [input('x', [1])],
      {},
    );
    expect(samples).toEqual([]);
    expect(rejected[0].reason).toMatch(/^NpyFormatError/);
  });
});
